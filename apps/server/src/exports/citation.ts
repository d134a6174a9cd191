/**
 * Formatted citations through citation-js (citeproc-js underneath, the CSL processor Zotero
 * uses), never hand-written templates. citation-js runs on a thread of its own
 * (citation-thread.ts); the exporter keeps answers per record revision.
 */
import { DomainError } from '@krs/domain';
import { createCitationThread } from './citation-thread.ts';
import type { CslItem } from './csl-json.ts';

/** The styles citation-js carries; each label is what the style switcher shows. */
export const CITATION_STYLES = [
  { id: 'apa', label: 'APA' },
  { id: 'harvard1', label: 'Harvard' },
  { id: 'vancouver', label: 'Vancouver' },
] as const;
export const CITATION_LOCALES = ['en-US', 'de-DE', 'es-ES', 'fr-FR', 'nl-NL'] as const;
export type CitationStyle = (typeof CITATION_STYLES)[number]['id'];
export const DEFAULT_STYLE: CitationStyle = 'apa';
export const DEFAULT_LOCALE = 'en-US';

/**
 * One for the process, started at the first citation or by `warmCitations` at start-up. Only the
 * engine every landing page uses is built ahead: the others are built on the thread when first
 * asked for, never on the event loop, and building all fifteen cost each start-up about a second
 * of CPU beside the requests it answers.
 */
const thread = createCitationThread([[DEFAULT_STYLE, DEFAULT_LOCALE]]);

/** Starts the citation thread, which builds the landing pages' engine in the background. */
export const warmCitations = (): void => thread.warm();

/**
 * Past this many authors every style shortens the list ("et al.", or APA's first nineteen, an
 * ellipsis and the last), so the formatter gets the first twenty and the last and never works
 * through thousands of names on the event loop.
 */
const AUTHORS_FORMATTED = 20;

export function citationStyle(raw: string | undefined): CitationStyle {
  if (raw === undefined || raw === '') return DEFAULT_STYLE;
  const style = CITATION_STYLES.find((s) => s.id === raw.toLowerCase());
  if (!style) throw new DomainError('invalid', 'request.query', `Unknown citation style "${raw}"; use one of ${CITATION_STYLES.map((s) => s.id).join(', ')}.`, [{ field: 'style', messages: ['Unknown citation style.'] }]);
  return style.id;
}

export function citationLocale(raw: string | undefined): string {
  if (raw === undefined || raw === '') return DEFAULT_LOCALE;
  const locale = CITATION_LOCALES.find((l) => l.toLowerCase() === raw.toLowerCase().replace('_', '-'));
  if (!locale) throw new DomainError('invalid', 'request.query', `Unknown citation locale "${raw}"; use one of ${CITATION_LOCALES.join(', ')}.`, [{ field: 'locale', messages: ['Unknown citation locale.'] }]);
  return locale;
}

/** HTML output escapes every character of the record's text; only the processor's own formatting tags remain. */
export function formatCitation(item: CslItem, style: CitationStyle, locale: string, format: 'html' | 'text'): Promise<string> {
  const authors = item.author ?? [];
  const shortened = authors.length > AUTHORS_FORMATTED + 1 ? [...authors.slice(0, AUTHORS_FORMATTED), ...authors.slice(-1)] : authors;
  return thread.run({ kind: 'bibliography', item: { ...item, author: shortened }, style, locale, format });
}

/** BibTeX of the whole item (every author: a reference manager wants them all). */
export function toBibtex(item: CslItem): Promise<string> {
  return thread.run({ kind: 'bibtex', item });
}
