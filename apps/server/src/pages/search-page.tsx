/**
 * The search page (and the home page, the newest records): the same query language, facets and
 * sorts as `GET /api/search`, every state in the URL so a result page can be shared.
 */
import type { RecordView, SearchPage as Page } from '@krs/domain';
import { textStart } from '../html-text.ts';
import { withLinkToken, type Links } from '../links.ts';
import { Layout } from './layout.tsx';
import { PICKER_H, PICKER_W } from './world-map.tsx';
import { eachPerson, label, str } from '../metadata-view.ts';

export interface SearchPageProps {
  page: Page;
  links: Links;
  /** The query as received, to rebuild links that change one thing. */
  query: [string, string][];
  /** The page's path on the site (`/search`, a package's context), as its own links name it under the base URL. */
  path: string;
  heading: string;
  /** The access-link token the page was opened with (a package's context): its links and its form keep it. */
  token?: string;
  /** The package parent whose context the page lists: that its resources are part of it goes without saying. */
  within?: string;
}

const SORTS: [string, string][] = [
  ['bestmatch', 'Best match'],
  ['newest', 'Newest'],
  ['oldest', 'Oldest'],
  ['updated-desc', 'Recently updated'],
];
const FACET_NAMES: Record<string, string> = { resource_type: 'Resource type', access_status: 'Access', record_type: 'Kind' };

/** The current URL with some parameters replaced (a value of null removes them) and paging reset unless given. */
function hrefWith(path: string, query: [string, string][], changes: Record<string, string | null>, toggle?: [string, string]): string {
  let args = query.filter(([k]) => !(k in changes) && k !== 'page');
  if (toggle !== undefined) {
    const [k, v] = toggle;
    args = args.some(([a, b]) => a === k && b === v) ? args.filter(([a, b]) => !(a === k && b === v)) : [...args, toggle];
  }
  for (const [k, v] of Object.entries(changes)) if (v !== null) args.push([k, v]);
  const qs = new URLSearchParams(args).toString();
  return qs === '' ? path : `${path}?${qs}`;
}

/** Creators a hit names, and characters of its description shown. */
const CREATORS_SHOWN = 5;
const TEXT_SHOWN = 300;

function Hit(props: { view: RecordView; links: Links; token: string | undefined; within: string | undefined }) {
  const r = props.view.record;
  const m = r.metadata as Record<string, unknown>;
  // A hit names five creators and shows a line of the description, of records that may hold thousands and 100,000 characters.
  const creators: string[] = [];
  for (const p of eachPerson(m['creators'])) {
    creators.push(p.name);
    if (creators.length > CREATORS_SHOWN) break;
  }
  const kindName = r.kind === 'package' ? 'Knowledge Package' : 'Knowledge Resource';
  const text = textStart(str(m['description']) ?? '', TEXT_SHOWN);
  const shown = props.view.holder?.shown;
  const partOf = shown?.parentId === props.within ? undefined : shown;
  return (
    <li>
      <p class="badges">
        <span>{kindName}</span>
        {label(m['resource_type']) && label(m['resource_type']) !== kindName ? <span>{label(m['resource_type'])}</span> : null}
        {r.access.record !== 'public' ? <span>Restricted</span> : null}
        {r.state === 'draft' ? <span>Draft</span> : null}
      </p>
      <h2>
        <a href={withLinkToken(props.links.record(r.kind, r.id, r.parentId, r.state)['self_html'] as string, props.token)}>{str(m['title']) ?? '(untitled)'}</a>
      </h2>
      {partOf ? (
        <p class="part-of">
          Part of <a href={withLinkToken(props.links.landing('package', partOf.id), props.token)}>{partOf.title || '(untitled)'}</a>
        </p>
      ) : null}
      <p class="meta">
        {creators.slice(0, CREATORS_SHOWN).join('; ')}
        {creators.length > CREATORS_SHOWN ? ' et al.' : ''}
        {str(m['publication_date']) ? ` · ${str(m['publication_date'])}` : ''}
      </p>
      {text.text !== '' ? <p>{text.more ? `${text.text}…` : text.text}</p> : null}
    </li>
  );
}

/**
 * Drawing the search's area without script: the map is an image button, whose clicks the
 * browser sends as `at.x`/`at.y`; the first click sets a corner, the second the opposite one.
 */
function AreaPicker(props: { query: [string, string][]; links: Links }) {
  const search = props.links.site('/search');
  const get = (k: string) => props.query.find(([a]) => a === k)?.[1];
  const corner = get('corner');
  const bbox = get('bbox');
  const shown: [string, string][] = [];
  if (bbox) shown.push(['bbox', bbox]);
  if (corner) shown.push(['corner', corner]);
  const image = new URLSearchParams(shown).toString();
  const kept = props.query.filter(([k]) => !['page', 'at.x', 'at.y'].includes(k));
  return (
    <details class="area-picker" open={corner !== undefined || bbox !== undefined}>
      <summary>Draw the area on a map</summary>
      <form action={search} method="get">
        {kept.map(([k, v]) => (
          <input type="hidden" name={k} value={v} />
        ))}
        <input type="image" name="at" src={`${props.links.site('/search/area.svg')}${image ? `?${image}` : ''}`} width={PICKER_W} height={PICKER_H} alt="World map: choose one corner of the area, then the opposite corner" />
      </form>
      <p class="meta" role="status">
        {corner ? `First corner at ${corner}: now choose the opposite corner.` : 'Choose one corner of the area, then the opposite corner.'}{' '}
        {bbox || corner ? <a href={hrefWith(search, props.query, { bbox: null, corner: null })}>Clear the area</a> : null}
      </p>
    </details>
  );
}

export function SearchPage(props: SearchPageProps) {
  const { page, query, path } = props;
  const here = props.links.site(path);
  const get = (k: string) => query.find(([a]) => a === k)?.[1] ?? '';
  const lastPage = Math.max(1, Math.ceil(Math.min(page.total, 10_000) / page.size));
  return (
    <Layout title={props.heading} links={props.links}>
      <h1>{props.heading}</h1>
      <form action={here} method="get" class="search-form">
        <p>
          <label for="q">Query</label>{' '}
          <input id="q" type="search" name="q" value={get('q')} />{' '}
          <label for="bbox">Area (west,north,east,south)</label>{' '}
          <input id="bbox" type="text" name="bbox" value={get('bbox')} placeholder="-10,60,30,35" />{' '}
          <label for="sort">Sort</label>{' '}
          <select id="sort" name="sort">
            {SORTS.map(([value, name]) => (
              <option value={value} selected={page.sortBy === value}>
                {name}
              </option>
            ))}
          </select>{' '}
          {props.token !== undefined ? <input type="hidden" name="token" value={props.token} /> : null}
          <button type="submit">Search</button>
        </p>
      </form>
      {path === '/search' ? <AreaPicker query={query} links={props.links} /> : null}
      <div class="layout">
        <section aria-labelledby="h-results">
          <h2 id="h-results" class="visually-hidden">
            Results
          </h2>
          <p class="meta" role="status">
            {page.total === 1 ? '1 record' : `${page.total.toLocaleString('en')} records`}
          </p>
          <ol class="hits">
            {page.hits.map((v) => (
              <Hit view={v} links={props.links} token={props.token} within={props.within} />
            ))}
          </ol>
          <nav class="paging" aria-label="Pages">
            {page.page > 1 ? <a href={withLinkToken(hrefWith(here, query, { page: String(page.page - 1) }), props.token)}>Previous page</a> : null}
            <span>
              Page {page.page} of {lastPage}
            </span>
            {page.page < lastPage ? <a href={withLinkToken(hrefWith(here, query, { page: String(page.page + 1) }), props.token)}>Next page</a> : null}
          </nav>
        </section>
        <aside aria-label="Filters">
          {Object.entries(page.aggregations).map(([facet, buckets]) =>
            buckets.length === 0 ? null : (
              <section class="facet">
                <h2>{FACET_NAMES[facet] ?? facet}</h2>
                <ul class="plain">
                  {buckets.map((b) => (
                    <li>
                      <a href={hrefWith(props.links.site('/search'), query, {}, [facet, b.key])} aria-current={b.isSelected ? 'true' : undefined}>
                        {b.isSelected ? '✓ ' : ''}
                        {b.label}
                      </a>{' '}
                      <span class="meta">({b.docCount})</span>
                    </li>
                  ))}
                </ul>
              </section>
            ),
          )}
        </aside>
      </div>
    </Layout>
  );
}
