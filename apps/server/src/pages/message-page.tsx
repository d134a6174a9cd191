/** Error pages (and other one-message pages), with the status the API would give. */
import type { Links } from '../links.ts';
import { Layout } from './layout.tsx';

const TITLES: Record<number, string> = {
  400: 'That request cannot be answered',
  401: 'Sign-in or a link is needed',
  403: 'Not yours to see',
  404: 'Nothing here',
  406: 'Not available in that format',
  500: 'Something went wrong on our side',
};

export function MessagePage(props: { status: number; message: string; links: Links }) {
  const title = TITLES[props.status] ?? `Error ${props.status}`;
  return (
    <Layout title={title} links={props.links}>
      <h1>{title}</h1>
      <p>{props.message}</p>
      <p>
        <a href={props.links.site('/')}>Home</a> · <a href={props.links.site('/search')}>Search</a>
      </p>
    </Layout>
  );
}
