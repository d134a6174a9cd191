import type { Kysely } from 'kysely';

/**
 * Access-link tokens are derived from the link id under the server secret and never stored;
 * links written before kept theirs in the parent's JSON. Those tokens stop granting anything (the
 * new token is shown on the link), and this drops them so a dump holds none.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const rows: { id: string; data: string }[] = await db.selectFrom('parent').select(['id', 'data']).where('data', 'like', '%"token"%').execute();
  for (const row of rows) {
    const parent = JSON.parse(row.data) as { accessLinks?: Record<string, unknown>[] };
    if (!Array.isArray(parent.accessLinks) || !parent.accessLinks.some((l) => 'token' in l)) continue;
    parent.accessLinks = parent.accessLinks.map(({ token: _dropped, ...link }) => link);
    await db.updateTable('parent').set({ data: JSON.stringify(parent) }).where('id', '=', row.id).execute();
  }
}

/** The dropped tokens cannot be brought back; links keep working with derived tokens either way. */
export async function down(): Promise<void> {}
