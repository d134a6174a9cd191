/** The table `pnpm bench` ends with: pasted into docs as it is, so it must stay a valid, aligned markdown table. */
import { describe, expect, it } from 'vitest';
import { benchCommand, markdownTable, summaryText, type SummaryRow } from '../bench/summary-table.ts';

const row = (over: Partial<SummaryRow>): SummaryRow => ({
  part: 'http',
  scenario: 'GET /api/records/{id}',
  krs: '4210 req/s',
  plain: '9000 req/s',
  ratio: '46.8%',
  target: '>= 40% of plain',
  met: true,
  ...over,
});

const cellsOf = (line: string) => line.slice(2, -2).split(/ \| /);

describe('markdownTable', () => {
  it('pads every column to its widest cell, so the lines are as long as each other', () => {
    const lines = markdownTable([row({}), row({ part: 'search', scenario: 'sqlite: one term p95', krs: '12.0 ms', plain: null, ratio: null, met: null })]).split('\n');
    expect(lines).toHaveLength(4);
    expect(new Set(lines.map((l) => l.length)).size).toBe(1);
    expect(lines[1]).toMatch(/^\|(-+\|)+$/);
  });

  it('shows a missing figure as -, and met, NOT met or - for the target', () => {
    const lines = markdownTable([row({ met: true }), row({ met: false }), row({ plain: null, ratio: null, met: null })]).split('\n');
    expect(cellsOf(lines[2] ?? '').map((c) => c.trim())).toEqual(['http', 'GET /api/records/{id}', '4210 req/s', '9000 req/s', '46.8%', '>= 40% of plain', 'met']);
    expect(cellsOf(lines[3] ?? '')[6]?.trim()).toBe('NOT met');
    expect(cellsOf(lines[4] ?? '').map((c) => c.trim())).toEqual(['http', 'GET /api/records/{id}', '4210 req/s', '-', '-', '>= 40% of plain', '-']);
  });

  it('escapes a | in a cell, so it does not split the cell', () => {
    const line = markdownTable([row({ scenario: 'a | b' })]).split('\n')[2] ?? '';
    expect(line).toContain('a \\| b');
    expect(cellsOf(line)).toHaveLength(7);
  });

  it('adds the note column only when a row has a note', () => {
    expect(markdownTable([row({})]).split('\n')[0]).not.toContain('note');
    const lines = markdownTable([row({}), row({ note: 'generator at 95% of a core' })]).split('\n');
    expect(lines[0]).toContain('| note');
    expect(cellsOf(lines[3] ?? '')[7]?.trim()).toBe('generator at 95% of a core');
  });
});

describe('benchCommand', () => {
  it('gives the BENCH_ settings, sorted, before pnpm bench, and nothing else of the environment', () => {
    expect(benchCommand({ PATH: '/usr/bin', BENCH_STACKS: '0', BENCH_SECONDS: '2', HOME: '/root' })).toBe('BENCH_SECONDS=2 BENCH_STACKS=0 pnpm bench');
    expect(benchCommand({})).toBe('pnpm bench');
  });

  it('quotes a value the shell would split', () => {
    expect(benchCommand({ BENCH_SEARCH_ENGINES: "sqlite minisearch's" })).toBe(`BENCH_SEARCH_ENGINES='sqlite minisearch'\\''s' pnpm bench`);
  });
});

describe('summaryText', () => {
  const machine = { cpu: 'Example CPU', cores: 2, memoryGiB: 3.8, node: 'v20.20.0', date: '2026-11-25T22:00:00Z' };

  it('heads the table with the machine and the command, and counts only the rows held to a target', () => {
    const text = summaryText({ machine, command: 'pnpm bench', rows: [row({ met: true }), row({ met: false }), row({ met: null })], skipped: [] });
    const lines = text.split('\n');
    expect(lines[0]).toBe('Machine: Example CPU, 2 cores, 3.8 GiB; Node v20.20.0; 2026-11-25T22:00:00Z');
    expect(lines[1]).toBe('Command: `pnpm bench`');
    expect(text).toContain('Targets met: 1 of 2.');
    expect(text).not.toContain('Skipped');
  });

  it('lists the parts that did not run', () => {
    const text = summaryText({ machine, command: 'pnpm bench', rows: [], skipped: ['writes (BENCH_WRITES=0)', 'stacks (BENCH_STACKS=0)'] });
    expect(text).toContain('Skipped: writes (BENCH_WRITES=0); stacks (BENCH_STACKS=0).');
  });
});
