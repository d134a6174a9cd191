/**
 * The few statements that differ between SQLite and PostgreSQL: reading a member of the JSON kept
 * in `data`. Indexes are built on these exact expressions, so queries and migrations share them.
 */
import { PostgresAdapter, sql, type Kysely, type RawBuilder } from 'kysely';

export const isPostgres = <T>(db: Kysely<T>): boolean => db.getExecutor().adapter instanceof PostgresAdapter;

/**
 * JSON text PostgreSQL cannot read as JSON: a lone surrogate, which JSON.stringify writes as a
 * `\udXXX` escape (and writes nothing else so). Only rows stored before strings were checked
 * hold one (copied from an older embedded store); for them every member expression is null
 * rather than an error.
 */
export const PG_UNREADABLE_JSON = String.raw`(^|[^\\])(\\\\)*\\u[dD][89a-fA-F]`;

/**
 * A member of `data` as text (SQLite: the JSON value, so `true` reads 1). SQLite guards with
 * json_valid so a damaged row neither stops a migration nor is refused by an index; PostgreSQL
 * with PG_UNREADABLE_JSON (its index expressions must be immutable, which the regex is).
 */
export function jsonMember<T>(db: Kysely<T>, path: string[], guarded = true): RawBuilder<string | null> {
  if (isPostgres(db)) return sql.raw(`(case when data !~ '${PG_UNREADABLE_JSON}' then (data::jsonb) #>> '{${path.join(',')}}' end)`);
  const member = `json_extract(data, '$.${path.join('.')}')`;
  return sql.raw(guarded ? `case when json_valid(data) then ${member} end` : member);
}

/** The JSON `true` as the dialect's member expression reads it. */
export const jsonTrue = <T>(db: Kysely<T>): RawBuilder<string | number> => (isPostgres(db) ? sql`'true'` : sql`1`);
