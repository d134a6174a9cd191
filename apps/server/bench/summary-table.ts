/**
 * The one table `pnpm bench` ends with: a row per figure that has a target (and a few it reports
 * beside them), from every part that ran, headed by the machine and the command, so a run can be
 * pasted into docs/benchmarks.md as it is. A markdown table with its columns padded: it reads
 * aligned in a terminal and renders as a table in the docs.
 */
import { cpus, totalmem } from 'node:os';

export interface SummaryRow {
  /** The part of the bench the row comes from: `http`, `upload`, `search`... */
  part: string;
  scenario: string;
  /** krs's figure, with its unit. */
  krs: string;
  /** The baseline's figure measured in the same run, where the part has one. */
  plain: string | null;
  /** krs against that baseline (or against what the target compares it with). */
  ratio: string | null;
  target: string;
  /** Null where the figure has no target, or the run cannot be held to it. */
  met: boolean | null;
  /** Why the figure should be read with care (a generator at its limit, errors...). */
  note?: string;
}

/** What each part hands back: its detailed text, already printed as it went, and its rows. */
export interface PartResult {
  text: string;
  rows: SummaryRow[];
  /** Set when the part could not run here (no `wrk`, say): why. */
  skipped?: string;
}

export interface Machine {
  cpu: string;
  cores: number;
  memoryGiB: number;
  node: string;
  /** ISO 8601, UTC. */
  date: string;
}

export function thisMachine(now = new Date()): Machine {
  const all = cpus();
  return {
    cpu: all[0]?.model.trim() ?? 'unknown',
    cores: all.length,
    memoryGiB: totalmem() / 1024 ** 3,
    node: process.version,
    date: now.toISOString().replace(/\.\d{3}Z$/, 'Z'),
  };
}

/** `pnpm bench` with the `BENCH_*` settings it ran with, as one would type it again. */
export function benchCommand(env: NodeJS.ProcessEnv): string {
  const settings = Object.entries(env)
    .filter((entry): entry is [string, string] => entry[0].startsWith('BENCH_') && entry[1] !== undefined)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, value]) => `${name}=${/^[\w.,:/@%+-]*$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`}`);
  return [...settings, 'pnpm bench'].join(' ');
}

export const metText = (met: boolean | null): string => (met === null ? '-' : met ? 'met' : 'NOT met');

/** A cell's text: a `|` would end the cell early, a line break the row. */
const cell = (text: string | null): string => (text ?? '-').replaceAll('|', '\\|').replace(/\s*\n\s*/g, ' ');

/** The rows as a markdown table, each column padded to its widest cell; the notes column only if a row has one. */
export function markdownTable(rows: SummaryRow[]): string {
  const withNotes = rows.some((r) => r.note !== undefined && r.note !== '');
  const header = ['part', 'scenario', 'krs', 'plain', 'ratio', 'target', 'met', ...(withNotes ? ['note'] : [])];
  const body = rows.map((r) => [r.part, r.scenario, r.krs, r.plain, r.ratio, r.target, metText(r.met), ...(withNotes ? [r.note ?? ''] : [])].map(cell));
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((cells) => (cells[i] ?? '').length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...body.map(line)].join('\n');
}

export interface Summary {
  machine: Machine;
  command: string;
  rows: SummaryRow[];
  /** Parts that did not run, each with why. */
  skipped: string[];
}

export function summaryText({ machine, command, rows, skipped }: Summary): string {
  const counted = rows.filter((r) => r.met !== null);
  const met = counted.filter((r) => r.met === true).length;
  return [
    `Machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGiB.toFixed(1)} GiB; Node ${machine.node}; ${machine.date}`,
    `Command: \`${command}\``,
    '',
    rows.length > 0 ? markdownTable(rows) : 'No part reported a figure.',
    '',
    `Targets met: ${met} of ${counted.length}.`,
    ...(skipped.length > 0 ? [`Skipped: ${skipped.join('; ')}.`] : []),
  ].join('\n');
}
