import type { Kysely } from 'kysely';
import { jsonMember } from '../dialect.ts';

/**
 * `parent.managed_by`: the package parent whose context holds a resource, as its `data` says. A
 * resource's read stamp, read on every anonymous GET, joins that package's parent through it (its
 * "part of" changes with that row), where reading `data` would parse the whole parent each time.
 * Parents stored before get theirs from `data`. A node of an earlier release writing a parent
 * leaves the column behind its `data`: the stamps then differ from what its answers were kept
 * under, and those answers are made afresh, never served stale.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('parent').addColumn('managed_by', 'text').execute();
  await db.updateTable('parent').set({ managed_by: jsonMember(db, ['managedBy']) }).where('kind', '=', 'resource').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('parent').dropColumn('managed_by').execute();
}
