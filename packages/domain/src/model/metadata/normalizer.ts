/**
 * The reading state of one metadata normalisation: draft issues (kept, they only block publish),
 * limit issues (the request is refused), vocabulary references to expand afterwards.
 */
import type { FieldIssue } from '../../errors.ts';
import type { VocabularyEntry, VocabularyType } from '../types.ts';
import type { PositionBudget } from './geometry.ts';
import { METADATA_LIMITS } from './limits.ts';
import { sanitizeHtml } from './sanitize-html.ts';
import { largeValueSlices } from '../../turns/time-slices.ts';
import { nextIteration } from '../../turns/next-iteration.ts';

export type Obj = { [key: string]: unknown };
export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

interface Ref {
  type: VocabularyType;
  id: string;
  path: string;
  apply(entry: VocabularyEntry): void;
  drop(): void;
}

/** A member name as shown in an issue's path: unknown names can be arbitrarily long. */
export const keyInPath = (key: string) => (key.length > 100 ? `${key.slice(0, 100)}…` : key);

/** Work units (see `work()`) from which a record is large: its later whole-record steps take turns of their own. */
const LARGE_WORK = 2_000;
/** Work units between two looks at the clock. */
const WORK_PER_LOOK = 64;
/** Lets other requests run: a later iteration of the loop, in turn with other long work (turns/next-iteration.ts). */
export const pause = nextIteration;

export class Normalizer {
  readonly issues: FieldIssue[] = [];
  readonly limitIssues: FieldIssue[] = [];
  readonly refs: Ref[] = [];
  readonly dropped = new WeakSet<object>();
  droppedCount = 0;
  private items = 0;
  private htmlChars = 0;
  /** Long lists are read in the slices of a large value (turns/time-slices.ts); the clock is read every few items. */
  private readonly slicing = largeValueSlices();
  private lookedAt = 0;

  /** List items, positions and sanitised HTML (in hundreds of characters) so far: what pauses are spaced by. */
  work(): number {
    return this.items + this.positions.examined + Math.floor(this.htmlChars / 100);
  }
  readonly positions: PositionBudget = { left: METADATA_LIMITS.maxPositions, examined: 0 };

  /** Gives the loop back if this record took more than a slice: before a step that walks all of it at once. */
  async pauseIfLarge(): Promise<void> {
    if (!this.large()) return;
    await this.slicing.turn();
  }

  /** Whether this record took enough work that its whole-record steps (encoding, storing) take turns. */
  large(): boolean {
    return this.work() >= LARGE_WORK;
  }

  issue(field: string, message: string): undefined {
    this.issues.push({ field, messages: [message] });
    return undefined;
  }

  overLimit(field: string, message: string): undefined {
    if (this.limitIssues.length < METADATA_LIMITS.maxIssues) this.limitIssues.push({ field, messages: [message] });
    return undefined;
  }

  string(v: unknown, path: string, opts: { required?: boolean; max?: number } = {}): string | undefined {
    if (v === undefined || v === null) return opts.required ? this.issue(path, 'Missing data for required field.') : undefined;
    if (typeof v !== 'string') return this.issue(path, 'Not a valid string.');
    const max = opts.max ?? METADATA_LIMITS.maxText;
    if (v.length > max) return this.overLimit(path, `Longer than maximum length ${max}.`);
    const t = v.trim();
    if (t === '' && opts.required) return this.issue(path, 'Field may not be empty.');
    return t;
  }

  /** Sanitised HTML; an escaped text that outgrows the limit is refused like a long one. */
  html(v: unknown, path: string, opts: { required?: boolean } = {}): string | undefined {
    const s = this.string(v, path, { ...opts, max: METADATA_LIMITS.maxHtml });
    if (s === undefined) return undefined;
    const clean = sanitizeHtml(s);
    this.htmlChars += s.length;
    if (clean.length > METADATA_LIMITS.maxHtml) return this.overLimit(path, `Longer than maximum length ${METADATA_LIMITS.maxHtml} once sanitised.`);
    return clean;
  }

  list<T>(v: unknown, path: string, each: (item: unknown, itemPath: string) => T | undefined, max: number = METADATA_LIMITS.maxList): T[] | undefined {
    if (v === undefined || v === null) return undefined;
    if (!Array.isArray(v)) return this.issue(path, 'Not a valid list.');
    // Checked before reading any item, so an oversized list costs nothing.
    if (v.length > max) return this.overLimit(path, `Longer than maximum length ${max}.`);
    const out: T[] = [];
    for (let i = 0; i < v.length; i++) {
      this.items++;
      const r = each(v[i], `${path}.${i}`);
      if (r !== undefined) out.push(r);
    }
    return out;
  }

  /**
   * A list long enough to matter (creators, related identifiers, locations): items are read in
   * slices with a pause between them, so one big record never holds the event loop for long.
   */
  async longList<T>(v: unknown, path: string, each: (item: unknown, itemPath: string) => T | undefined, max: number): Promise<T[] | undefined> {
    if (v === undefined || v === null) return undefined;
    if (!Array.isArray(v)) return this.issue(path, 'Not a valid list.');
    if (v.length > max) return this.overLimit(path, `Longer than maximum length ${max}.`);
    const out: T[] = [];
    for (let i = 0; i < v.length; i++) {
      if (this.work() - this.lookedAt >= WORK_PER_LOOK) {
        this.lookedAt = this.work();
        if (this.slicing.due()) await this.slicing.turn();
      }
      this.items++;
      const r = each(v[i], `${path}.${i}`);
      if (r !== undefined) out.push(r);
    }
    return out;
  }

  object(v: unknown, path: string, allowed: readonly string[]): Obj | undefined {
    if (v === undefined || v === null) return undefined;
    if (!isObj(v)) return this.issue(path, 'Not a valid object.');
    for (const k of Object.keys(v)) if (!allowed.includes(k)) this.issue(`${path}.${keyInPath(k)}`, 'Unknown field.');
    return v;
  }

  /** Text keyed by language code (`{"en": "..."}`), as InvenioRDM's titles of vocabulary-less entries. */
  i18n(v: unknown, path: string, opts: { required?: boolean } = {}): Obj | undefined {
    if (v === undefined || v === null) return opts.required ? this.issue(path, 'Missing data for required field.') : undefined;
    if (!isObj(v)) return this.issue(path, 'Must be an object of texts keyed by language code.');
    const entries = Object.entries(v);
    if (entries.length > 100) return this.overLimit(path, 'More than 100 languages.');
    const out: Obj = {};
    for (const [lang, text] of entries) {
      if (!/^[a-z]{2,3}([-_][A-Za-z0-9]{1,8})?$/.test(lang)) {
        this.issue(`${path}.${lang.slice(0, 20)}`, 'Not a language code.');
        continue;
      }
      const t = this.string(text, `${path}.${lang}`);
      if (t) out[lang] = t;
    }
    return Object.keys(out).length > 0 ? out : opts.required ? this.issue(path, 'Missing data for required field.') : undefined;
  }

  /** `{id}` from a vocabulary, expanded later; `holder` is dropped from its list if the id is unknown. */
  vocab(v: unknown, path: string, type: VocabularyType, holder?: object): Obj | undefined {
    if (v === undefined || v === null) return undefined;
    if (!isObj(v) || (typeof v['id'] !== 'string' && typeof v['id'] !== 'number')) return this.issue(path, 'Must be an object with an id.');
    const id = String(v['id']);
    if (id.length > 1000) return this.overLimit(`${path}.id`, 'Longer than maximum length 1000.');
    const out: Obj = { id };
    this.refs.push({
      type,
      id,
      path,
      apply: (entry) => {
        out['title'] = entry.title;
        if (entry.description && type !== 'resource_types') out['description'] = entry.description;
        if (entry.icon !== undefined && type === 'licenses') out['icon'] = entry.icon;
        if (entry.props && (type === 'licenses' || type === 'subjects')) out['props'] = entry.props;
        if (type === 'subjects') {
          out['subject'] = entry.title['en'] ?? Object.values(entry.title)[0] ?? entry.id;
          if (entry.props?.['scheme']) out['scheme'] = entry.props['scheme'];
          delete out['title'];
          delete out['props'];
        }
        if (type === 'affiliations') {
          out['name'] = entry.title['en'] ?? Object.values(entry.title)[0] ?? entry.id;
          delete out['title'];
        }
      },
      drop: () => {
        this.dropped.add(holder ?? out);
        this.droppedCount++;
      },
    });
    return out;
  }

  fixed(v: unknown, path: string, allowed: string[]): Obj | undefined {
    if (v === undefined || v === null) return undefined;
    if (!isObj(v) || typeof v['id'] !== 'string') return this.issue(path, 'Must be an object with an id.');
    if (!allowed.includes(v['id'])) return this.issue(`${path}.id`, `Invalid value; use one of: ${allowed.join(', ')}.`);
    return { id: v['id'] };
  }

  /** `[{scheme, identifier}]`, schemes lower-cased. */
  schemeIdentifiers(v: unknown, path: string, max: number = METADATA_LIMITS.maxList): Obj[] | undefined {
    return this.list(
      v,
      path,
      (item, p) => {
        const o = this.object(item, p, ['scheme', 'identifier']);
        if (!o) return undefined;
        const scheme = this.string(o['scheme'], `${p}.scheme`, { required: true });
        const identifier = this.string(o['identifier'], `${p}.identifier`, { required: true });
        return scheme && identifier ? { scheme: scheme.toLowerCase(), identifier } : undefined;
      },
      max,
    );
  }
}
