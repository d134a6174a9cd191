/**
 * A query Kysely would otherwise build and compile again on every call (a tree of frozen nodes,
 * then a walk of it), compiled once per database with a marker in place of each value: a call
 * only puts its values where the markers were. On the write path this was about a tenth of a
 * create's main-thread time.
 */
import type { Compilable, CompiledQuery, Kysely, QueryResult } from 'kysely';
import { committedReads } from './create-db.ts';
import type { Database } from './database.ts';

interface Template {
  compiled: CompiledQuery;
  /** For each parameter, the name of the value it takes, or undefined for one the query fixes. */
  slots: (string | undefined)[];
}

const MARK = '\u0000krs-value:';

/**
 * `build` gets one marker per value name, typed as the values are (the marker is a string at run
 * time, which only ever reaches the compiler). Each value must go into the query as one bound
 * parameter, as `where(col, '=', v)`, `values({...})` and `set({...})` put it, never as a list.
 * The handles of one database (it and its transactions) share the template: they compile alike.
 */
export function compiledOnce<V extends object, R>(names: readonly (keyof V & string)[], build: (db: Kysely<Database>, values: V) => Compilable<R>) {
  const templates = new WeakMap<object, Template>();
  const templateFor = (db: Kysely<Database>): Template => {
    // One adapter per Kysely instance, kept by its transactions: the key for "compiles alike".
    const key = db.getExecutor().adapter;
    let template = templates.get(key);
    if (template === undefined) {
      const markers = Object.fromEntries(names.map((n) => [n, MARK + n])) as V;
      const compiled = build(db, markers).compile();
      const slots = compiled.parameters.map((p) => (typeof p === 'string' && p.startsWith(MARK) ? p.slice(MARK.length) : undefined));
      template = { compiled, slots };
      templates.set(key, template);
    }
    return template;
  };
  const bind = ({ compiled, slots }: Template, values: V) => slots.map((name, i) => (name === undefined ? compiled.parameters[i] : values[name as keyof V]));
  /** The statement's text and the parameters `values` give it, as `run` would execute them. */
  const compile = (db: Kysely<Database>, values: V): { sql: string; parameters: readonly unknown[] } => {
    const template = templateFor(db);
    return { sql: template.compiled.sql, parameters: bind(template, values) };
  };
  const run = (db: Kysely<Database>, values: V): Promise<QueryResult<R>> => {
    const template = templateFor(db);
    return db.executeQuery<R>({ ...template.compiled, parameters: bind(template, values) } as CompiledQuery<R>);
  };
  /**
   * The first row, read on the database's committed-rows connection when it has one (SQLite on
   * a file, create-db.ts), else through Kysely: a transaction's handle has none, and reads
   * through the transaction.
   */
  const first = async (db: Kysely<Database>, values: V): Promise<R | undefined> => {
    const committedRead = committedReads.get(db);
    return committedRead !== undefined ? committedRead<R>(compile(db, values)) : (await run(db, values)).rows[0];
  };
  return Object.assign(run, { compile, first });
}
