/** The frame of every page: landmarks, a skip link, the site search, one stylesheet served by krs. */
import type { Child } from 'hono/jsx';
import type { Links } from '../links.ts';

export const STYLESHEET_PATH = '/static/krs.css';

export function Layout(props: { title: string; children: Child; head?: Child; links: Links }) {
  const site = props.links.site;
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${props.title} | Knowledge Records`}</title>
        <link rel="stylesheet" href={site(STYLESHEET_PATH)} />
        {props.head}
      </head>
      <body>
        <a class="skip" href="#main">
          Skip to content
        </a>
        <header class="site">
          <a class="brand" href={site('/')}>
            Knowledge Records
          </a>
          <form role="search" action={site('/search')} method="get">
            <label for="site-q" class="visually-hidden">
              Search records
            </label>
            <input id="site-q" type="search" name="q" placeholder="Search knowledge resources and packages" />
            <button type="submit">Search</button>
          </form>
        </header>
        <main id="main">{props.children}</main>
        <footer class="site">
          <p>
            Knowledge Resources and Knowledge Packages about Earth Observation applications. <a href={site('/api/search')}>JSON API</a> ·{' '}
            <a href={`${props.links.oai}?verb=Identify`}>OAI-PMH</a>
          </p>
        </footer>
      </body>
    </html>
  );
}

export const bytes = (n: number): string => {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[i]}`;
};
