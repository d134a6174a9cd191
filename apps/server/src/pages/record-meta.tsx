/**
 * What a published version's landing page says about itself in its head, for the readers that
 * do not run scripts: reference managers (Zotero's embedded-metadata reader) and Google Scholar
 * read Highwire Press `citation_*` tags, chat and social previews read Open Graph, crawlers the
 * canonical address and description, and FAIR Signposting clients `describedby` links to each
 * export format (the same links the HTTP `Link` header carries).
 */
import type { FileEntry, RecordView } from '@krs/domain';
import { EXPORT_FORMATS } from '../exports/formats.ts';
import { textOf } from '../html-text.ts';
import { withLinkToken, type Links } from '../links.ts';
import { label, list, obj, people, str } from '../metadata-view.ts';

/** Authors named in `citation_author` tags, as the page lists them; the exports carry every one. */
const AUTHORS_TAGGED = 100;
const KEYWORDS_TAGGED = 50;
const DESCRIPTION_CHARACTERS = 300;

/** Plain text of the description's start, cut at a word, for `description` and `og:description`. */
export function summaryOf(html: string): string {
  // Only the start is needed: a description may be hundreds of kilobytes. A tag cut in two is dropped.
  const text = textOf(html.slice(0, DESCRIPTION_CHARACTERS * 8).replace(/<[^>]*$/, ''));
  if (text.length <= DESCRIPTION_CHARACTERS) return text;
  const cut = text.slice(0, DESCRIPTION_CHARACTERS);
  const space = cut.lastIndexOf(' ');
  return `${(space > DESCRIPTION_CHARACTERS / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/** `YYYY/MM/DD`, `YYYY/MM` or `YYYY`, as Google Scholar reads dates, from an EDTF date or the start of an interval. */
export function scholarDate(edtf: string): string | null {
  const m = /^(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?/.exec(edtf);
  return m ? [m[1], m[2], m[3]].filter((part) => part !== undefined).join('/') : null;
}

/**
 * `token`: the access-link token the page was opened with. The export links hand it on, as the
 * page's other links do, or their reader is refused; the canonical address stays the record's own.
 */
export function RecordMeta(props: { view: RecordView; files: FileEntry[]; links: Links; token?: string | undefined }) {
  const { view, links } = props;
  const r = view.record;
  const m = r.metadata as Record<string, unknown>;
  const landing = links.landing(r.kind, r.id);
  const title = str(m['title']);
  const description = str(m['description']);
  const summary = description ? summaryOf(description) : null;
  const date = str(m['publication_date']);
  const scholar = date ? scholarDate(date) : null;
  const publisher = str(m['publisher']);
  const doi = str(obj(r.pids['doi'])?.['identifier']);
  const keywords = list(m['subjects'])
    .slice(0, KEYWORDS_TAGGED)
    .flatMap((s) => str(obj(s)?.['subject']) ?? label(s) ?? []);
  const language = list(m['languages']).flatMap((l) => str(obj(l)?.['id']) ?? [])[0];
  // A reader that follows it must be able to fetch it: public files only.
  const pdf = r.access.files === 'public' ? props.files.find((f) => f.status === 'completed' && f.mimetype === 'application/pdf') : undefined;
  return (
    <>
      <link rel="canonical" href={landing} />
      {summary ? <meta name="description" content={summary} /> : null}
      {title ? <meta name="citation_title" content={title} /> : null}
      {people(list(m['creators']).slice(0, AUTHORS_TAGGED)).map((p) => (
        <>
          <meta name="citation_author" content={p.sortName} />
          {p.affiliations[0] ? <meta name="citation_author_institution" content={p.affiliations[0]} /> : null}
        </>
      ))}
      {scholar ? <meta name="citation_publication_date" content={scholar} /> : null}
      {doi ? <meta name="citation_doi" content={doi} /> : null}
      {publisher ? <meta name="citation_publisher" content={publisher} /> : null}
      {keywords.length > 0 ? <meta name="citation_keywords" content={keywords.join('; ')} /> : null}
      {language ? <meta name="citation_language" content={language} /> : null}
      <meta name="citation_abstract_html_url" content={landing} />
      {pdf ? <meta name="citation_pdf_url" content={links.file(r.kind, r.id, 'published', pdf.key)['content'] as string} /> : null}
      <meta property="og:type" content="website" />
      <meta property="og:site_name" content="Knowledge Records" />
      {title ? <meta property="og:title" content={title} /> : null}
      {summary ? <meta property="og:description" content={summary} /> : null}
      <meta property="og:url" content={landing} />
      <meta name="twitter:card" content="summary" />
      {doi ? <link rel="cite-as" href={`https://doi.org/${doi}`} /> : null}
      {EXPORT_FORMATS.map((f) => (
        <link rel="describedby" type={f.mediaType} href={withLinkToken(links.export(r.kind, r.id, f.id), props.token)} />
      ))}
    </>
  );
}
