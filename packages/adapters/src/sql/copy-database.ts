/**
 * Copies every table of one store into another (SQLite into PostgreSQL, the way up from one node
 * to many), resumable and verified. Rows go in key order, in batches, each batch inserted with ON
 * CONFLICT DO NOTHING: a copy cut short is run again and goes on where it stopped, and rows the
 * target already holds are never overwritten. Verification reads both sides again and compares
 * row counts and a digest of every row's content.
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

export async function copyDatabase(from: Kysely<Database>, to: Kysely<Database>, onProgress?: (p: CopyProgress) => void): Promise<void> {
  for (const table of ORDER) {
    const total = await countOf(from, table);
    let copied = 0;
    onProgress?.({ table, copied, total });
    for await (const rows of rowsOf(from, table)) {
      await to
        .insertInto(table as 'parent')
        .values(rows as never)
        .onConflict((oc) => oc.doNothing())
        .execute();
      copied += rows.length;
      onProgress?.({ table, copied, total });
    }
  }
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
