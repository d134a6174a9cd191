/**
 * Copies every table of one store into another (SQLite into PostgreSQL, the way up from one node
 * to many), resumable and verified. Rows go in key order, in batches, each batch upserted: a copy
 * cut short is run again and goes on, and a run after writes on the source (a live copy, then a
 * last run with the server stopped) brings changed rows up to date. Rows deleted on the source
 * since an earlier run (a draft published or discarded, its file entries) are deleted on the
 * target too: left there, a published record would show the draft it had at the earlier run as an
 * open edit. So the target is the source's copy and nothing else. Verification reads both sides
 * again and compares row counts and a digest of every row's content.
 */
import { createHash } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { Database } from './database.ts';

/** Each table with the columns of its key, in the order that respects the foreign key (user before api_token). */
const TABLES: { [T in keyof Database]?: (keyof Database[T] & string)[] } = {
  parent: ['id'],
  draft: ['id'],
  record: ['id'],
  file_entry: ['owner_state', 'record_id', 'key'],
  user: ['id'],
  api_token: ['hash'],
  vocabulary: ['type', 'id'],
};
const ORDER = ['user', 'api_token', 'vocabulary', 'parent', 'draft', 'record', 'file_entry'] as const;
type TableName = (typeof ORDER)[number];

const BATCH = 500;

export interface CopyProgress {
  table: string;
  copied: number;
  total: number;
}

export interface TableReport {
  table: string;
  source: number;
  target: number;
  /** Same count and same content on both sides. */
  matches: boolean;
}

type Row = Record<string, unknown>;

/** Pages through a table in key order, each page after the last key of the one before. */
async function* rowsOf(db: Kysely<Database>, table: TableName): AsyncGenerator<Row[]> {
  // Table and column names come from the fixed list above, never from input.
  const key = sql.join((TABLES[table] as string[]).map((k) => sql.ref(k)));
  let after: unknown[] | null = null;
  for (;;) {
    const where = after === null ? sql`` : sql`where (${key}) > (${sql.join(after)})`;
    const rows = (await sql<Row>`select * from ${sql.table(table)} ${where} order by ${key} limit ${BATCH}`.execute(db)).rows;
    if (rows.length === 0) return;
    yield rows;
    const last = rows[rows.length - 1] as Row;
    after = (TABLES[table] as string[]).map((k) => last[k]);
  }
}

async function countOf(db: Kysely<Database>, table: TableName): Promise<number> {
  const row = await db.selectFrom(table as 'parent').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

/** A page of keys as a VALUES list, `(k1, k2), ...`, which both SQLite and PostgreSQL compare row values with. */
function keyValues(table: TableName, rows: Row[]) {
  const key = TABLES[table] as string[];
  return sql.join(rows.map((row) => sql`(${sql.join(key.map((k) => row[k]))})`));
}

/** Deletes, on `to`, each row whose key `from` no longer has; returns how many. Children before parents (api_token before user). */
async function pruneTable(from: Kysely<Database>, to: Kysely<Database>, table: TableName): Promise<number> {
  const key = sql.join((TABLES[table] as string[]).map((k) => sql.ref(k)));
  let removed = 0;
  for await (const rows of rowsOf(to, table)) {
    const kept = (await sql<Row>`select ${key} from ${sql.table(table)} where (${key}) in (values ${keyValues(table, rows)})`.execute(from)).rows;
    const keep = new Set(kept.map((row) => JSON.stringify((TABLES[table] as string[]).map((k) => row[k]))));
    const gone = rows.filter((row) => !keep.has(JSON.stringify((TABLES[table] as string[]).map((k) => row[k]))));
    if (gone.length === 0) continue;
    await sql`delete from ${sql.table(table)} where (${key}) in (values ${keyValues(table, gone)})`.execute(to);
    removed += gone.length;
  }
  return removed;
}

/** Copies every table; returns, per table, how many rows it deleted on the target for being gone from the source. */
export async function copyDatabase(from: Kysely<Database>, to: Kysely<Database>, onProgress?: (p: CopyProgress) => void): Promise<Record<string, number>> {
  for (const table of ORDER) {
    const total = await countOf(from, table);
    let copied = 0;
    onProgress?.({ table, copied, total });
    for await (const rows of rowsOf(from, table)) {
      const key = TABLES[table] as string[];
      const rest = Object.keys(rows[0] as Row).filter((c) => !key.includes(c));
      await to
        .insertInto(table as 'parent')
        .values(rows as never)
        .onConflict((oc) => oc.columns(key as never).doUpdateSet(Object.fromEntries(rest.map((c) => [c, sql.ref(`excluded.${c}`)])) as never))
        .execute();
      copied += rows.length;
      onProgress?.({ table, copied, total });
    }
  }
  const removed: Record<string, number> = {};
  for (const table of [...ORDER].reverse()) {
    const n = await pruneTable(from, to, table);
    if (n > 0) removed[table] = n;
  }
  return removed;
}

/**
 * The row count and a digest of the content that does not depend on row order (each side sorts
 * text by its own collation): the XOR of every row's SHA-256, over its columns in a fixed order.
 * Keys are unique, so no two rows cancel out.
 */
async function digestOf(db: Kysely<Database>, table: TableName): Promise<{ count: number; digest: string }> {
  const acc = Buffer.alloc(32);
  let count = 0;
  for await (const rows of rowsOf(db, table)) {
    for (const row of rows) {
      const h = createHash('sha256').update(JSON.stringify(Object.keys(row).sort().map((k) => [k, row[k] === null ? null : String(row[k])]))).digest();
      for (let i = 0; i < 32; i++) acc[i] = (acc[i] as number) ^ (h[i] as number);
      count++;
    }
  }
  return { count, digest: acc.toString('hex') };
}

/** Every table compared: counts and content digests equal on both sides. */
export async function verifyCopy(from: Kysely<Database>, to: Kysely<Database>): Promise<TableReport[]> {
  const out: TableReport[] = [];
  for (const table of ORDER) {
    const [a, b] = await Promise.all([digestOf(from, table), digestOf(to, table)]);
    out.push({ table, source: a.count, target: b.count, matches: a.count === b.count && a.digest === b.digest });
  }
  return out;
}
