/**
 * The search reader threads run in Linux's idle scheduling class, so that the main thread, woken
 * by a request, takes their core at once (worker-priority.ts).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Sqlite } from '../src/sql/sqlite-driver.ts';
import { describe, expect, it } from 'vitest';
import { createThreadReader } from '../src/search/sqlite-reader.ts';
import { tempDir } from './sqlite-fixture.ts';

/** SCHED_IDLE, as /proc numbers the policies. */
const SCHED_IDLE = 5;

/** The threads of this process in the idle class: a thread's policy is the 41st field of its stat. */
function idleThreads(): number {
  let idle = 0;
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      // The fields after the command's name, which may hold spaces and parentheses: the 3rd on.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[41 - 3]) === SCHED_IDLE) idle++;
    } catch {
      // A thread that ended meanwhile.
    }
  }
  return idle;
}

describe('the search reader threads', () => {
  it('run in the idle scheduling class', async () => {
    const file = join(tempDir(), 'search.sqlite');
    const db = new Sqlite(file);
    db.exec('create table t (x integer); insert into t values (1)');
    db.close();
    const before = idleThreads();
    const reader = createThreadReader(file, 2);
    try {
      // Each thread lowers itself first thing, as it starts: waited for, a step at a time.
      await reader.rows('select x from t', []);
      for (let i = 0; i < 100 && idleThreads() - before < 2; i++) await new Promise((ok) => setTimeout(ok, 50));
      expect(idleThreads() - before).toBe(2);
    } finally {
      await reader.close();
    }
  });
});
