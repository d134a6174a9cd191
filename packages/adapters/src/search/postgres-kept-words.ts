/**
 * A public listing of one unfielded word that stands for several words of the vocabulary (a
 * prefix several words complete, a fuzzy word of several expansions), counted and ranked from
 * what the writes keep per word (`search_count`, `search_title`) and from the documents holding
 * more than one of the words, rather than from every match.
 *
 * Counts: the union of the words' documents is the sum of each word's kept count less, for each
 * document holding `held` of the words, `held - 1`. Those documents (`overlapSql`) are found from
 * the GIN index, word after word (the documents holding word i and any word before it: a
 * document is visited `held - 1` times, never one holding a single word) or, for many words, as
 * the documents holding any but the most held one. For a fuzzy word whose expansions seldom meet
 * in one document, or a prefix of one common word and rare ones, that is a fraction of its matches.
 *
 * Page: `ts_rank` of the query adds, for each of its words a document holds, a part over the
 * number of the query's operands; a word in the title has its part, exact, in `title_words` (and
 * the kept title score, `search_title`, is that part damped by the length), a word outside it
 * less than 0.1. So a document holding one word scores its word's kept title score over the
 * operands, or under 0.1 over them; the documents holding several are the overlap, bounded from
 * their rows. The candidates are the overlap, the first entries of each word's kept title
 * scores and a signed-in reader's own matches; a document that is none of them scores at most
 * the greater of 0.1 and the last title score read, over the operands. When the page's last
 * place among the candidates is above that, the page is theirs, ordered by their exact scores.
 */
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { lexeme } from './postgres-text.ts';

type Db = Kysely<object>;

/** Words a listing of one word may stand for and still be answered here. */
export const MAX_KEPT_WORDS = 128;

/**
 * Up to this many words, the documents holding several are found word after word, a GIN scan
 * each; past it, by reading the documents holding a word but the most held one, at most
 * FEW_OTHERS of them (see `overlapSql`).
 */
const MAX_VISITS = 16;
const FEW_OTHERS = 4000;

/** The words, each with its kept count over the listing's kinds, most held first. */
export interface KeptWords {
  words: readonly { word: string; n: number }[];
}

/**
 * The listing's words with their kept counts (the public documents of those kinds holding each),
 * most held first, those no such document holds now last: all are kept, since the statements
 * after this one may see a write this one did not. Null when visiting the documents holding
 * several words may cost more than visiting every match: they are at most the sum of the counts
 * less the largest, and every match is at least the largest; or, for more than MAX_VISITS words,
 * when more than FEW_OTHERS documents hold one but the most held (`overlapSql` reads each).
 */
export async function keptWords(db: Db, words: readonly string[], kinds: readonly string[]): Promise<KeptWords | null> {
  const counted = new Map(
    (
      await sql<{ word: string; n: string }>`select lexeme as word, sum(n) as n from search_count where lexeme = any(${[...words]}::text[])
        and kind = any(${[...kinds]}::text[]) group by lexeme`.execute(db)
    ).rows.map((r) => [r.word, Number(r.n)]),
  );
  const rows = words.map((word) => ({ word, n: counted.get(word) ?? 0 }));
  rows.sort((a, b) => b.n - a.n || (a.word < b.word ? -1 : a.word > b.word ? 1 : 0));
  const largest = rows[0]?.n ?? 0;
  const others = rows.reduce((s, r) => s + r.n, 0) - largest;
  return others <= largest && (rows.length <= MAX_VISITS || others <= FEW_OTHERS) ? { words: rows } : null;
}

/** A document's score from `vector`, as the engine ranks (the same expression, so the same float). */
const scoreOf = (vector: RawBuilder<unknown>, query: string) => sql`ts_rank(${vector}, ${query}::tsquery, 0) / sqrt(1 + word_count / 50.0::float8)`;

/**
 * How many of `words` a vector holds: its lexemes less those left once they are deleted (one pass,
 * in C); for a few words, each word looked up in it (a fuzzy word's two expansions at 100k:
 * 1-1.5 ms less over its 3 024 documents holding both, as ts_delete copies the vector).
 */
const holding = (vector: RawBuilder<unknown>, words: readonly string[]) =>
  words.length <= FEW_LOOKUPS
    ? sql`(${sql.join(words.map((w) => sql`(${vector} @@ ${lexeme(w)}::tsquery)::integer`), sql` + `)})`
    : sql`(length(${vector}) - length(ts_delete(${vector}, ${[...words]}::text[])))`;
const FEW_LOOKUPS = 4;

/**
 * The listed documents holding more than one of the words, each once, with `held`, how many of
 * them it holds. Found one of two ways: for a few words (MAX_VISITS), those holding word i and
 * one before it, for each i (each visited once per word past its first; the documents holding
 * one word, most of a fuzzy word's, never); for more (a prefix's rare words), the documents
 * holding any word but the most held one (one GIN scan), each counting the words its vector
 * holds. With `rank`, also what bounds its score: `x`, the title's part (its score from the
 * title's words: the whole score when the title holds every word the document holds), `c`, how
 * many of the words the title holds, and `s`, the length damping.
 */
function overlapSql(kept: KeptWords, listed: RawBuilder<boolean>, rank: { query: string } | null): RawBuilder<unknown> {
  const words = kept.words.map((w) => w.word);
  const columns = sql`key, id, kind, resource_type, resource_type_label, access_status, created${
    rank === null ? sql`` : sql`, ${scoreOf(sql`title_words`, rank.query)} as x, ${holding(sql`title_words`, words)} as c, sqrt(1 + word_count / 50.0::float8) as s`
  }`;
  if (words.length < 2) return sql`select ${columns}, 0 as held from search_doc where false`;
  if (words.length > MAX_VISITS) {
    return sql`select * from (select ${columns}, ${holding(sql`words`, words)} as held from search_doc
      where words @@ ${words.slice(1).map(lexeme).join(' | ')}::tsquery and ${listed}) v where held > 1`;
  }
  const visits = words.slice(1).map((word, i) => {
    const before = words.slice(0, i + 1).map(lexeme).join(' | ');
    return sql`select ${columns} from search_doc where words @@ ${`${lexeme(word)} & (${before})`}::tsquery and ${listed}`;
  });
  // Two words: one visit, each document once. More: a document is in one visit per word past its
  // first, grouped by key alone (the other columns are its row's).
  if (visits.length === 1) return sql`select *, 2 as held from (${visits[0]}) v`;
  const others = sql.raw(
    ['id', 'kind', 'resource_type', 'resource_type_label', 'access_status', 'created', ...(rank === null ? [] : ['x', 'c', 's'])].map((c) => `any_value(${c}) as ${c}`).join(', '),
  );
  return sql`select key, ${others}, count(*) + 1 as held from (${sql.join(visits, sql` union all `)}) v group by key`;
}

/** What `keptWordsAnswer` needs of the request, built by the engine. */
export interface KeptWordsRequest {
  /** The public listed rows of the request's kinds (the kept counts' documents). */
  listed: RawBuilder<boolean>;
  kinds: readonly string[];
  /** The request's facet filters, on search_doc's and search_title's columns. */
  facets: RawBuilder<boolean>;
  /** A signed-in reader's own matches (not public), or null. */
  own: RawBuilder<boolean> | null;
  /** The grouping: the select list of the facet columns, and the group by, empty when none. */
  groupSelect: readonly RawBuilder<unknown>[];
  groupBy: readonly RawBuilder<unknown>[];
  labelled: boolean;
  /** The ranked page: the rank query, its number of operands, where the page starts and ends. */
  page: { query: string; operands: number; start: number; size: number } | null;
}

export interface KeptWordsAnswer<G, P> {
  counts: G[];
  /** Null when the title scores read do not decide the page (or none was asked). */
  page: P[] | null;
}

/**
 * Title scores read per word at first, as a multiple of the page's end (at least 100: equal
 * titles tie far past a page), then four times as many, up to the last try.
 */
const FIRST_DEPTH = 2;
const DEEPEST = 4096;

/**
 * The counts (groups as the engine's counting statement makes them) and, with `page`, the ranked
 * page, if the kept title scores decide it (see the header).
 */
export async function keptWordsAnswer<G, P>(db: Db, kept: KeptWords, request: KeptWordsRequest): Promise<KeptWordsAnswer<G, P>> {
  const words = kept.words.map((w) => w.word);
  const rank = request.page === null ? null : { query: request.page.query, words };
  const o = overlapSql(kept, request.listed, rank);
  const counts = sql`select ${sql.join([...request.groupSelect, request.labelled ? sql`min(resource_type_label) as label` : sql`null as label`, sql`sum(n) as n`])}
    from (select kind, resource_type, resource_type_label, access_status, sum(n) as n from search_count
        where lexeme = any(${words}::text[]) and kind = any(${[...request.kinds]}::text[])
        group by lexeme, kind, resource_type, resource_type_label, access_status having sum(n) > 0
      union all select kind, resource_type, resource_type_label, access_status, 1 - held from o
      ${request.own === null ? sql`` : sql`union all select kind, resource_type, resource_type_label, access_status, count(*) from search_doc where ${request.own}
        group by kind, resource_type, resource_type_label, access_status`}) g
    ${request.groupBy.length === 0 ? sql`` : sql`group by ${sql.join(request.groupBy)}`}`;
  const countsJson = sql`(select coalesce(json_agg(c order by c.label), '[]') from (${counts}) c)`;
  if (request.page === null || rank === null) {
    const row = (await sql<{ counts: G[] }>`with o as materialized (${o}) select ${countsJson} as counts`.execute(db)).rows[0];
    return { counts: row?.counts ?? [], page: null };
  }
  const { start, size, operands } = request.page;
  const end = start + size;
  let withCounts = true;
  let answer: KeptWordsAnswer<G, P> = { counts: [], page: null };
  for (let depth = Math.max(FIRST_DEPTH * end, 100); ; depth *= 4) {
    const row = (await pageStatement<G, P>(o, withCounts ? countsJson : null, request, rank, operands, Math.min(depth, DEEPEST), end).execute(db)).rows[0];
    if (withCounts) answer = { counts: row?.counts ?? [], page: null };
    withCounts = false;
    if (row?.decided === true) return { ...answer, page: row.page };
    // Deeper only helps while some word has more title scores than were read.
    if (row?.deeper !== true || depth >= DEEPEST) return answer;
  }
}

/**
 * One try at the page from `depth` title scores per word: the candidates' bounds, the page's last
 * place among them (`theta`), the bound of every other document (`beyond`), and, when theta is
 * above it, the page, its candidates that may reach it scored exactly: from the title's words when
 * the title holds every word the document holds (their part is the whole score), else from the
 * vector. A signed-in reader's own matches are few and scored from their vectors.
 */
function pageStatement<G, P>(
  o: RawBuilder<unknown>,
  countsJson: RawBuilder<unknown> | null,
  request: KeptWordsRequest,
  rank: { query: string; words: readonly string[] },
  operands: number,
  depth: number,
  end: number,
) {
  const order = sql.raw('score desc, created COLLATE "C" desc, id COLLATE "C" asc, key COLLATE "C" asc');
  return sql<{ counts: G[]; page: P[]; decided: boolean; deeper: boolean }>`with o as materialized (${o}),
    titled as materialized (
      select w.word, t.* from unnest(${[...rank.words]}::text[]) w(word), lateral (
        select key, id, kind, created, score, count(*) over () as read from (
          select key, id, kind, created, score from search_title where lexeme = w.word and kind = any(${[...request.kinds]}::text[]) and ${request.facets}
          order by score desc, created COLLATE "C" desc, id COLLATE "C" asc, key COLLATE "C" asc limit ${depth}) f) t
    ),
    beyond as (
      select greatest(0.1, coalesce(max(last), 0)) as b from (select min(score) as last from titled group by word having max(read) >= ${depth}) x
    ),
    candidates as materialized (
      select key, id, kind, created, x as lo, x * 1.0001 + (0.1 * (held - c) / ${operands}::float8 + 1e-6) / s as hi, held = c as exact, false as listed
        from o where ${request.facets}
      union all
      select key, id, kind, created, score / ${operands}::float8, score / ${operands}::float8 * 1.0001 + 1e-9, false, true
        from (select distinct on (key) key, id, kind, created, score from titled order by key) t where key not in (select key from o)
      ${request.own === null ? sql`` : sql`union all select key, id, kind, created, x, x, true, false from (
        select key, id, kind, created, ${scoreOf(sql`words`, rank.query)} as x from search_doc where ${request.own} and ${request.facets}) m`}
    ),
    theta as (select coalesce((select lo from candidates order by lo desc limit 1 offset ${end - 1}), 0) * 0.9999 as v),
    page as (
      select c.id, c.kind, c.created, c.key, case when c.exact then c.lo else (
          select ${scoreOf(sql.raw(`case when c.listed then title_words else words end`), rank.query)} from search_doc d where d.key = c.key) end as score
        from candidates c where c.hi >= (select v from theta)
      order by ${order} limit ${request.page?.size ?? 0} offset ${request.page?.start ?? 0}
    )
    select ${countsJson ?? sql`null`} as counts,
      (select v from theta) > (select b from beyond) / ${operands}::float8 * 1.0001 + 1e-6 as decided,
      exists (select 1 from titled where read >= ${depth}) as deeper,
      (select coalesce(json_agg(json_build_object('id', id, 'kind', kind, 'state', 'published') order by ${order}), '[]') from page) as page`;
}
