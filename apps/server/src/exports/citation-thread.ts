/**
 * citation-js on a thread of its own. Both of its costs are single synchronous calls that no
 * slicing can break up: building citeproc's engine for a style and locale (50-130 ms, the first
 * time each pair is used in a process) and a BibTeX entry of every author (50-60 ms for 20,000).
 * On the event loop either held every other request; here the loop only sends the item and
 * awaits the text. Started at start-up, the thread builds every engine, one at a time, so the
 * first citation after start-up rarely waits for one.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** What the thread is asked for: a formatted citation, or a BibTeX entry (style and locale unused). */
export type CitationJob =
  | { kind: 'bibliography'; item: object; style: string; locale: string; format: 'html' | 'text' }
  | { kind: 'bibtex'; item: object };

type Reply = { id: number; text: string } | { id: number; error: string };

const require = createRequire(import.meta.url);
const MODULES = {
  core: require.resolve('@citation-js/core'),
  csl: require.resolve('@citation-js/plugin-csl'),
  bibtex: require.resolve('@citation-js/plugin-bibtex'),
};

/** CommonJS evaluated by the thread: the modules are resolved here, so it needs no loader of its own. */
const THREAD_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { Cite } = require(workerData.modules.core);
require(workerData.modules.csl);
require(workerData.modules.bibtex);
// BibTeX's month is one of its twelve macros (\`month = sep\`). citation-js writes \`{sep 1}\` for a
// full date and \`{9}\` for a year and month: BibTeX prints either as it stands and biber refuses both.
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const monthMacro = (text) =>
  text.replace(/^(\\s*month = )\\{(?:([a-z]{3})(?: \\d{1,2})?|(1[0-2]|[1-9]))\\},$/m, (line, head, name, number) =>
    name !== undefined && !MONTHS.includes(name) ? line : head + (name ?? MONTHS[Number(number) - 1]) + ',');
const run = (job) =>
  job.kind === 'bibtex'
    ? monthMacro(new Cite([job.item]).format('bibtex', { format: 'text' }))
    : new Cite([job.item]).format('bibliography', { format: job.format, template: job.style, lang: job.locale }).trim();
parentPort.on('message', (job) => {
  try {
    parentPort.postMessage({ id: job.id, text: run(job) });
  } catch (e) {
    parentPort.postMessage({ id: job.id, error: String((e && e.message) || e) });
  }
});
// Engines are kept per style and locale by citation-js: one tiny citation builds each, a turn
// apiece so that requests sent meanwhile are answered between them.
const warm = workerData.warm.slice();
const sample = { id: 'warm', type: 'dataset', title: 'Warm', author: [{ family: 'Warm', given: 'A' }], issued: { 'date-parts': [[2024]] } };
const next = () => {
  const pair = warm.shift();
  if (pair === undefined) return;
  try {
    run({ kind: 'bibliography', item: sample, style: pair[0], locale: pair[1], format: 'text' });
  } catch {}
  setImmediate(next);
};
setImmediate(next);
`;

/**
 * The thread, started by `warm` (main.ts, at start-up), which also has it build the engines of
 * `warmPairs` in the background, or else by the first call. Idle, it never keeps the process
 * alive; if it stops, the calls waiting fail and the next call starts another.
 */
export function createCitationThread(warmPairs: readonly (readonly [style: string, locale: string])[]) {
  let worker: Worker | null = null;
  const pending = new Map<number, { ok: (text: string) => void; fail: (e: Error) => void }>();
  let next = 0;
  const start = (warm: readonly (readonly [string, string])[]): Worker => {
    const w = new Worker(THREAD_SOURCE, { eval: true, workerData: { modules: MODULES, warm } });
    w.unref();
    w.on('message', (reply: Reply) => {
      const p = pending.get(reply.id);
      if (p === undefined) return;
      pending.delete(reply.id);
      if ('error' in reply) p.fail(new Error(reply.error));
      else p.ok(reply.text);
      if (pending.size === 0) w.unref();
    });
    const stopped = (e: Error) => {
      if (worker === w) worker = null;
      for (const p of pending.values()) p.fail(e);
      pending.clear();
    };
    w.on('error', stopped);
    w.on('exit', () => stopped(new Error('the citation thread has stopped')));
    return w;
  };
  return {
    /** Starts the thread, which builds the engines of `warmPairs` in the background. */
    warm(): void {
      worker ??= start(warmPairs);
    },
    run(job: CitationJob): Promise<string> {
      // Started by a citation rather than by `warm` (tests, tools), it builds engines as asked.
      const w = (worker ??= start([]));
      return new Promise<string>((ok, fail) => {
        const id = next++;
        pending.set(id, { ok, fail });
        // Referenced while it has work, so an answer is awaited even at shutdown.
        w.ref();
        w.postMessage({ ...job, id });
      });
    },
  };
}

export type CitationThread = ReturnType<typeof createCitationThread>;
