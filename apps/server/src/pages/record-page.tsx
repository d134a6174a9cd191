/** The landing page of a published version, and the preview of a draft, for resources and packages alike. */
import { accessStatus, type AccessStatus, type FileEntry, type RecordView } from '@krs/domain';
import { CITATION_STYLES, type CitationStyle } from '../exports/citation.ts';
import { EXPORT_FORMATS } from '../exports/formats.ts';
import { withLinkToken as withToken, type Links } from '../links.ts';
import { bytes, Layout } from './layout.tsx';
import { RecordMeta } from './record-meta.tsx';
import { firstPeople, identifierUrl, label, list, obj, places, str, type Place } from '../metadata-view.ts';
import type { HtmlEscapedString } from 'hono/utils/html';

export interface RecordPageProps {
  view: RecordView;
  files: FileEntry[];
  /** Whether the files are closed to this reader (restricted, or under embargo): the page says so instead of listing them. */
  filesClosed?: boolean;
  links: Links;
  /** A package's resources (title, landing page, type), when the page is a package's. */
  resources?: { title: string; href: string; type: string | null }[];
  /** The access-link token the page was opened with: download links keep it. */
  token?: string;
  /** A published version's formatted citation (HTML from the CSL processor) in the chosen style. */
  citation?: { style: CitationStyle; html: string };
  /** A published version's schema.org JSON-LD as script text (for dataset search engines). */
  jsonLd?: string;
  /** The map of the record's located places (`mapFigure`), made before the page in turns of its own. */
  map: HtmlEscapedString;
}

/** Creators listed on the page (and in its embedded JSON-LD); the exports carry every one. */
export const PEOPLE_SHOWN = 100;
/**
 * Items the page shows of any other list (subjects, keywords, related identifiers, funding,
 * places, ...), the rest counted: a record may hold thousands, and a page listing them all takes
 * tens of milliseconds to make and megabytes to send, for no reader. The exports carry every one.
 */
export const ITEMS_SHOWN = 100;

/** What a page shows of a list: the values of its first items, up to `n`, and how many items are left. */
export function firstValues<T>(items: unknown[], n: number, valueOf: (item: unknown) => T | null): (T | string)[] {
  const values: (T | string)[] = [];
  let i = 0;
  for (; i < items.length && values.length < n; i++) {
    const value = valueOf(items[i]);
    if (value !== null) values.push(value);
  }
  return i < items.length ? [...values, `and ${items.length - i} more`] : values;
}

/** What a reader can get of the record and its files, as InvenioRDM's access status says it. */
const ACCESS_BADGES: Record<AccessStatus, string> = { open: 'Open access', restricted: 'Restricted', embargoed: 'Embargoed', 'metadata-only': 'Metadata-only' };

export function RecordPage(props: RecordPageProps) {
  const { view, links } = props;
  const r = view.record;
  const m = r.metadata as Record<string, unknown>;
  const title = str(m['title']) ?? '(untitled)';
  const draft = r.state === 'draft';
  const kindName = r.kind === 'package' ? 'Knowledge Package' : 'Knowledge Resource';
  const creators = firstPeople(m['creators'], PEOPLE_SHOWN);
  const contributors = firstPeople(m['contributors'], PEOPLE_SHOWN);
  const where = places(m['locations']);
  const description = str(m['description']);
  const doi = str(obj(r.pids['doi'])?.['identifier']);
  const embargo = r.access.embargo;
  const committed = props.files.filter((f) => f.status === 'completed' && f.blob !== null);
  // Readers who land on a resource (from a search engine, a DOI) find the package it belongs to, if they may read it.
  const partOf = view.holder?.shown;
  const versionsOf = draft ? view.parent.latestPublishedId : r.id;
  const jsonHref = withToken(links.record(r.kind, r.id, r.parentId, r.state)['self'] as string, props.token);
  return (
    <Layout
      title={title}
      links={links}
      head={
        <>
          <link rel="alternate" type="application/json" href={jsonHref} />
          {/* For dataset search engines; drafts are not for indexing. */}
          {props.jsonLd !== undefined ? <script type="application/ld+json" dangerouslySetInnerHTML={{ __html: props.jsonLd }} /> : <meta name="robots" content="noindex" />}
          {draft ? null : <RecordMeta view={view} files={committed} links={links} token={props.token} />}
        </>
      }
    >
      {draft ? (
        <p class="notice" role="status">
          Preview of a draft: not published, visible only to its owners and to holders of a link.
        </p>
      ) : null}
      {!draft && !view.versions.isLatest ? (
        <p class="notice" role="status">
          A newer version exists. <a href={withToken(`${links.landing(r.kind, r.id)}/latest`, props.token)}>Go to the latest version</a>
        </p>
      ) : null}
      <article class="layout">
        <div>
          <p class="badges">
            <span>{kindName}</span>
            {label(m['resource_type']) && label(m['resource_type']) !== kindName ? <span>{label(m['resource_type'])}</span> : null}
            <span>{ACCESS_BADGES[accessStatus(r)]}{embargo.active ? ` until ${embargo.until ?? 'further notice'}` : ''}</span>
            <span>Version {view.versions.index}</span>
          </p>
          <h1>{title}</h1>
          {partOf ? (
            <p class="part-of">
              Part of <a href={links.landing('package', partOf.id)}>{partOf.title || '(untitled)'}</a>
              <span class="meta"> (Knowledge Package)</span>
            </p>
          ) : null}
          {creators.total > 0 ? (
            <ul class="plain creators" aria-label="Creators">
              {creators.shown.map((p) => (
                <li>
                  {p.name}
                  {p.orcid ? (
                    <>
                      {' '}
                      <a href={`https://orcid.org/${p.orcid}`} aria-label={`ORCID of ${p.name}`}>
                        ORCID
                      </a>
                    </>
                  ) : null}
                  {p.affiliations.length > 0 ? <span class="meta"> ({p.affiliations.join('; ')})</span> : null}
                </li>
              ))}
              {creators.total > PEOPLE_SHOWN ? <li class="meta">and {creators.total - PEOPLE_SHOWN} more (every creator is in the exports)</li> : null}
            </ul>
          ) : null}
          <p class="meta">
            {str(m['publication_date']) ? `Publication date ${str(m['publication_date'])}` : null}
            {str(m['publisher']) ? ` · ${str(m['publisher'])}` : null}
            {doi ? (
              <>
                {' · '}
                <a href={`https://doi.org/${doi}`}>doi:{doi}</a>
              </>
            ) : null}
          </p>
          {description ? (
            <section aria-labelledby="h-description">
              <h2 id="h-description">Description</h2>
              {/* Sanitised when it was stored (packages/domain sanitize-html): only safe markup is left. */}
              <div class="description" dangerouslySetInnerHTML={{ __html: description }} />
            </section>
          ) : null}
          {props.resources !== undefined ? (
            <section aria-labelledby="h-resources">
              <h2 id="h-resources">Resources in this package</h2>
              {props.resources.length === 0 ? (
                <p class="meta">None.</p>
              ) : (
                <ul>
                  {props.resources.map((res) => (
                    <li>
                      <a href={withToken(res.href, props.token)}>{res.title}</a>
                      {res.type ? <span class="meta"> · {res.type}</span> : null}
                    </li>
                  ))}
                </ul>
              )}
              <p>
                <a href={withToken(`${links.landing('package', r.id)}/context`, props.token)}>Every resource of this package, across its versions</a>
              </p>
            </section>
          ) : null}
          <section aria-labelledby="h-files">
            <h2 id="h-files">Files</h2>
            {!r.files.enabled ? (
              <p class="meta">Metadata only: this record has no files.</p>
            ) : props.filesClosed ? (
              <p class="meta">{embargo.active ? `The files are under embargo until ${embargo.until ?? 'further notice'}.` : 'The files are restricted.'}</p>
            ) : committed.length === 0 ? (
              <p class="meta">No files.</p>
            ) : (
              <table>
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">Size</th>
                    <th scope="col">MD5</th>
                  </tr>
                </thead>
                <tbody>
                  {committed.map((f) => (
                    <tr>
                      <td>
                        <a href={withToken(links.file(r.kind, r.id, r.state, f.key)['content'] as string, props.token)} download={f.key}>
                          {f.key}
                        </a>
                      </td>
                      <td class="size">{bytes(f.blob?.size ?? 0)}</td>
                      <td>
                        <code>{f.blob?.md5}</code>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </section>
          <MoreDetails m={m} contributors={contributors.shown.map((c) => c.name).concat(contributors.total > PEOPLE_SHOWN ? [`and ${contributors.total - PEOPLE_SHOWN} more`] : [])} />
        </div>
        <aside>
          {props.map}
          {where.some((p) => p.name) ? (
            <section aria-labelledby="h-places">
              <h2 id="h-places">Places</h2>
              <ul class="plain">
                {firstValues(where, ITEMS_SHOWN, (p) => (p as Place).name).map((name) => (
                  <li>{name}</li>
                ))}
              </ul>
            </section>
          ) : null}
          <section aria-labelledby="h-versions">
            <h2 id="h-versions">Versions</h2>
            <p>
              This is version {view.versions.index}
              {!draft && view.versions.isLatest ? ', the latest' : ''}.
            </p>
            {/* The versions listing answers for published ids only (as `GET /{id}` does): a draft's page links the latest's, a draft never published none. */}
            {versionsOf !== null ? (
              <p>
                <a href={withToken(links.record(r.kind, versionsOf, r.parentId, 'published')['versions'] as string, props.token)}>All versions (JSON)</a>
              </p>
            ) : (
              <p>No version is published yet.</p>
            )}
          </section>
          {props.citation ? <Citation {...props.citation} action={links.landing(r.kind, r.id)} token={props.token} /> : null}
          <section aria-labelledby="h-export">
            <h2 id="h-export">Export</h2>
            <ul class="plain">
              {draft ? (
                <li>
                  <a href={jsonHref}>JSON</a>
                </li>
              ) : (
                EXPORT_FORMATS.map((f) => (
                  <li>
                    <a href={withToken(links.export(r.kind, r.id, f.id), props.token)} type={f.mediaType}>
                      {f.label}
                    </a>
                  </li>
                ))
              )}
            </ul>
          </section>
        </aside>
      </article>
    </Layout>
  );
}

/** The citation, and a form to see it in another style: a plain GET, so it works without script. */
function Citation(props: { style: CitationStyle; html: string; action: string; token: string | undefined }) {
  return (
    <section aria-labelledby="h-citation" class="citation">
      <h2 id="h-citation">Cite as</h2>
      {/* The CSL processor escapes the record's text; its own markup is italics and blocks. */}
      <div dangerouslySetInnerHTML={{ __html: props.html }} />
      <form method="get" action={`${props.action}#h-citation`}>
        <label for="citation-style">Style</label>{' '}
        <select id="citation-style" name="style">
          {CITATION_STYLES.map((s) => (
            <option value={s.id} selected={s.id === props.style}>
              {s.label}
            </option>
          ))}
        </select>{' '}
        {props.token !== undefined ? <input type="hidden" name="token" value={props.token} /> : null}
        <button type="submit">Show</button>
      </form>
    </section>
  );
}

/** A value of the details: text, or text after a prefix that links where its identifier opens. */
type Shown = string | { before: string; text: string; href: string | null };

/** Subjects, rights, related identifiers, languages, funding and GEO's own fields, when present. */
function MoreDetails(props: { m: Record<string, unknown>; contributors: string[] }) {
  const { m } = props;
  const firstOf = (v: unknown, valueOf: (item: unknown) => Shown | null) => firstValues<Shown>(list(v), ITEMS_SHOWN, valueOf);
  const rows: [string, Shown[]][] = [
    ['Contributors', props.contributors],
    ['Subjects', firstOf(m['subjects'], (s) => str(obj(s)?.['subject']) ?? label(s))],
    ['Keywords', firstOf(m['keywords'], str)],
    ['Rights', firstOf(m['rights'], label)],
    ['Languages', firstOf(m['languages'], label)],
    [
      'Related identifiers',
      firstOf(m['related_identifiers'], (x) => {
        const id = str(obj(x)?.['identifier']);
        if (id === null) return null;
        const relation = label(obj(x)?.['relation_type']);
        // GEO's related identifiers may carry a title: a reader knows the work by it, not by its URL.
        const title = str(obj(x)?.['title']);
        return { before: relation ? `${relation}: ` : '', text: title ? `${title} (${id})` : id, href: identifierUrl(id, str(obj(x)?.['scheme'])) };
      }),
    ],
    ['Funding', firstOf(m['funding'], (f) => [label(obj(f)?.['funder']), str(obj(obj(f)?.['award'])?.['title']) ?? label(obj(f)?.['award'])].filter((x): x is string => x !== null).join(', ') || null)],
    ['Target audiences', firstOf(m['target_audiences'], label)],
    ['Engagement priorities', firstOf(m['engagement_priorities'], label)],
    ['Work programme activity', [label(m['geo_work_programme_activity'])].filter((x): x is string => x !== null)],
  ];
  const shown = rows.filter(([, values]) => values.length > 0);
  if (shown.length === 0) return null;
  return (
    <section aria-labelledby="h-details">
      <h2 id="h-details">Details</h2>
      <table>
        <tbody>
          {shown.map(([name, values]) => (
            <tr>
              <th scope="row">{name}</th>
              <td>
                {values.map((value, i) => (
                  <>
                    {i > 0 ? '; ' : ''}
                    {typeof value === 'string' ? value : value.href === null ? `${value.before}${value.text}` : (
                      <>
                        {value.before}
                        <a href={value.href}>{value.text}</a>
                      </>
                    )}
                  </>
                ))}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
