/**
 * The better-sqlite3 build this Node runs: the 12 line on Node 20, the 13 line (installed under
 * the alias `better-sqlite3-napi`) on Node 22 and later.
 *
 * better-sqlite3 12 is the last line that runs on Node 20, and on Node 24 it aborts the process
 * when built against the headers of 24.19 or later (as its prebuilt binaries are): a statement
 * collected outside a JS context trips an assertion in node::ObjectWrap's destructor. 13 is
 * written on Node-API, ships binaries that run on every Node from 22 without compiling, and
 * crashes on Node 20. Both are optional dependencies: the one a Node cannot build or load is
 * skipped at install, and only the one that fits is ever loaded.
 */
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

const require = createRequire(import.meta.url);
const NODE_MAJOR = Number(process.versions.node.split('.')[0]);

/** The package this Node loads, by name. */
export const SQLITE_PACKAGE = NODE_MAJOR >= 22 ? 'better-sqlite3-napi' : 'better-sqlite3';

function resolveDriver(): string {
  try {
    return require.resolve(SQLITE_PACKAGE);
  } catch {
    throw new Error(
      `${SQLITE_PACKAGE} is not installed for Node ${process.versions.node}: run \`pnpm install\` with this Node (see docs/node-versions.md).`,
    );
  }
}

/** Its entry point's path, for worker threads that load it themselves. */
export const SQLITE_MODULE_PATH = resolveDriver();

/** better-sqlite3's Database constructor, from the build that fits this Node. */
export const Sqlite = require(SQLITE_MODULE_PATH) as typeof BetterSqlite3;
