/**
 * CPU use read from `/proc`, so a figure can say where the cores went: a server node, the
 * balancer, PostgreSQL's processes, the load generator, or each core as a whole.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

export const TICKS_PER_SECOND = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

/** The fields of `/proc/<pid>/stat` after the command name (which may hold spaces and parentheses). */
function statFields(pid: number): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** Clock ticks of CPU (user + system) a process has used so far; throws once it is gone. */
export function cpuTicks(pid: number): number {
  const fields = statFields(pid);
  return Number(fields[11]) + Number(fields[12]);
}

/**
 * Milliseconds the threads of a process (`thread` alone, if given) have spent so far ready to run
 * but waiting for a core (`schedstat`'s run delay): a load generator or a server's main thread
 * that waits there answers late for reasons of the machine's, not of the code it runs. Throws
 * once the process is gone.
 */
export function runQueueWaitMs(pid: number, thread?: number): number {
  const tasks = thread === undefined ? readdirSync(`/proc/${pid}/task`) : [String(thread)];
  let ns = 0;
  for (const task of tasks) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[1]);
    } catch {
      /* a thread that ended since the listing */
    }
  }
  return ns / 1e6;
}

function ticksOrUndefined(pid: number): number | undefined {
  try {
    return cpuTicks(pid);
  } catch {
    return undefined;
  }
}

function allPids(): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number);
}

/** A process and all its descendants alive now (PostgreSQL's backends are the postmaster's children). */
export function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const pid of allPids()) {
    try {
      const parent = Number(statFields(pid)[1]);
      children.set(parent, [...(children.get(parent) ?? []), pid]);
    } catch {
      /* gone since the listing */
    }
  }
  const tree: number[] = [];
  const visit = (pid: number) => {
    tree.push(pid);
    for (const child of children.get(pid) ?? []) visit(child);
  };
  visit(root);
  return tree;
}

/** The pid whose command line holds every one of `parts` (a postmaster by its data dir and port, say). */
export function findProcess(parts: string[]): number | undefined {
  for (const pid of allPids()) {
    try {
      const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      if (parts.every((p) => args.includes(p))) return pid;
    } catch {
      /* gone since the listing */
    }
  }
  return undefined;
}

/** Busy and total ticks of each core so far, from `/proc/stat`. */
function coreTicks(): { busy: number; total: number }[] {
  return readFileSync('/proc/stat', 'utf8')
    .split('\n')
    .filter((line) => /^cpu\d+ /.test(line))
    .map((line) => {
      const [user, nice, system, idle, iowait, irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number) as number[];
      const busy = (user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0) + (steal ?? 0);
      return { busy, total: busy + (idle ?? 0) + (iowait ?? 0) };
    });
}

export interface CpuUse {
  /** Per named group of pids: CPU time over wall time (1 = one full core). */
  groups: Record<string, number>;
  /** Per core: its busy share over the span (0-1), whatever ran on it. */
  cores: number[];
}

/**
 * Starts counting; the returned function ends the span and gives the shares. Groups are lists of
 * pids, read at both ends; a process gone by the end (a PostgreSQL backend whose connection the
 * pool closed) counts for nothing, since its last ticks can no longer be read.
 */
export function measureCpu(groups: Record<string, number[]>): () => CpuUse {
  const t0 = performance.now();
  const before = new Map<number, number>();
  for (const pid of Object.values(groups).flat()) {
    const ticks = ticksOrUndefined(pid);
    if (ticks !== undefined) before.set(pid, ticks);
  }
  const coresBefore = coreTicks();
  return () => {
    const wall = (performance.now() - t0) / 1000;
    const coresAfter = coreTicks();
    const used = (pids: number[]) =>
      pids.reduce((sum, pid) => {
        const start = before.get(pid);
        const end = ticksOrUndefined(pid);
        return start === undefined || end === undefined ? sum : sum + end - start;
      }, 0);
    return {
      groups: Object.fromEntries(Object.entries(groups).map(([name, pids]) => [name, used(pids) / TICKS_PER_SECOND / wall])),
      cores: coresAfter.map((c, i) => {
        const b = coresBefore[i] ?? { busy: 0, total: 0 };
        return c.total > b.total ? (c.busy - b.busy) / (c.total - b.total) : 0;
      }),
    };
  };
}
