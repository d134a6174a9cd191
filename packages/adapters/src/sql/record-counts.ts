import type { Kysely } from 'kysely';
import type { Database } from './database.ts';

/** Drafts and published versions per record kind, for an operator's gauges. */
export async function countRecords(db: Kysely<Database>): Promise<{ kind: string; state: 'draft' | 'published'; count: number }[]> {
  const [drafts, published] = await Promise.all(
    (['draft', 'record'] as const).map((table) =>
      db
        .selectFrom(table)
        .select(['kind', (eb) => eb.fn.countAll<number>().as('n')])
        .groupBy('kind')
        .execute(),
    ),
  );
  return [
    ...(drafts ?? []).map((r) => ({ kind: r.kind, state: 'draft' as const, count: Number(r.n) })),
    ...(published ?? []).map((r) => ({ kind: r.kind, state: 'published' as const, count: Number(r.n) })),
  ];
}
