/**
 * Requests per second from `wrk`, a native load generator (Debian's `wrk` package), rather than
 * from a Node client: a Node client saturates near 10k requests/s on this machine and would hide
 * every figure above that. On a machine with more than one core the generator is pinned to the
 * last core and servers (started through `pinned()`) to the others, so they do not take turns on
 * one. The generator's own CPU time is read from `/proc` during each run: a generator near a
 * full core is the bottleneck, and the run says so instead of reporting the server's figure.
 */
import { execFileSync, spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { cpuTicks, runQueueWaitMs, TICKS_PER_SECOND } from './cpu.ts';

export interface WrkResult {
  perSecond: number;
  /** Requests completed over the run. */
  requests: number;
  /** Latency percentiles in milliseconds, as wrk's `--latency` prints them. */
  p50: number;
  p90: number;
  p99: number;
  /** Answers outside 2xx/3xx plus socket errors (connect, read, write, timeout). */
  errors: number;
  /** The generator's CPU time over the run's wall time: near 1, the figure is the generator's. */
  generatorCpu: number;
  /**
   * The time the generator's threads waited for a core, over the run's wall time: the latencies
   * it measured include those waits (answers it had not yet read), so a share of a few percent
   * already moves a p99.
   */
  generatorWait: number;
}

export interface WrkOptions {
  connections?: number;
  seconds?: number;
  headers?: Record<string, string>;
  /** A Lua script (`wrk -s`) that builds the requests (method, body, a path per request). */
  script?: string;
  /** wrk's threads (`-t`), one connection group each; 1 unless a script spreads them over hosts. */
  threads?: number;
}

/** Cores the generator uses (the last one) and the servers use (the rest), when there are several. */
const cores = availableParallelism();
const GENERATOR_CORE = String(cores - 1);
const SERVER_CORES = cores > 1 ? `0-${cores - 2}` : '0';

export function hasWrk(): boolean {
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' });
    return true;
  } catch (e) {
    // wrk --version exits 1 after printing its version: only a missing binary is missing.
    return (e as NodeJS.ErrnoException).code !== 'ENOENT';
  }
}

function hasTaskset(): boolean {
  try {
    execFileSync('taskset', ['-p', String(process.pid)], { stdio: 'ignore' });
    return cores > 1;
  } catch {
    return false;
  }
}
const canPin = hasTaskset();

/** A server command line, pinned away from the generator's core where that is possible. */
export function pinned(command: string, args: string[]): [string, string[]] {
  return canPin ? ['taskset', ['-c', SERVER_CORES, command, ...args]] : [command, args];
}

/**
 * Moves this process (all its threads) to the servers' cores. The bench reads the servers' log
 * output from pipes; left free, that reading lands on the generator's core and delays it, which
 * shows up as the servers' tail latency (p99 of 150-250 ms where the server itself answered in 17).
 */
export function keepOffGeneratorCore(): void {
  pinToServerCores(process.pid);
}

/**
 * Moves a running process (all its threads) to the servers' cores; processes it forks later
 * inherit that (PostgreSQL's backends, forked by the postmaster per connection).
 */
export function pinToServerCores(pid: number): void {
  if (canPin) execFileSync('taskset', ['-a', '-p', '-c', SERVER_CORES, String(pid)], { stdio: 'ignore' });
}

/**
 * Gives this process (all its threads) every core again, undoing `keepOffGeneratorCore`. Servers
 * and writers it starts inherit its cores: left on the servers' cores after one part, the next
 * part's server shared one core with the bench process sending to it (the upload at 44-51% of
 * the plain write in full runs, 89% alone).
 */
export function releaseCores(): void {
  if (canPin) execFileSync('taskset', ['-a', '-p', '-c', `0-${cores - 1}`, String(process.pid)], { stdio: 'ignore' });
}

/** Which cores run what, for the figures' headings. */
export const placement = canPin ? { servers: SERVER_CORES, generator: GENERATOR_CORE } : null;

const unit = { us: 0.001, ms: 1, s: 1000 } as const;
function millis(text: string | undefined): number {
  const m = /^([\d.]+)(us|ms|s)$/.exec(text ?? '');
  return m === null ? Number.NaN : Number(m[1]) * unit[m[2] as keyof typeof unit];
}

export function parseWrk(output: string): Omit<WrkResult, 'generatorCpu' | 'generatorWait'> {
  const perSecond = Number(/Requests\/sec:\s+([\d.]+)/.exec(output)?.[1] ?? Number.NaN);
  const requests = Number(/(\d+) requests in /.exec(output)?.[1] ?? Number.NaN);
  const pct = (p: string) => millis(new RegExp(`^\\s+${p}%\\s+(\\S+)`, 'm').exec(output)?.[1]);
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(output)?.[1] ?? 0);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(output);
  const socketErrors = socket === null ? 0 : socket.slice(1).reduce((sum, n) => sum + Number(n), 0);
  return { perSecond, requests, p50: pct('50'), p90: pct('90'), p99: pct('99'), errors: non2xx + socketErrors };
}

export function wrk(url: string, options: WrkOptions = {}): Promise<WrkResult> {
  const connections = options.connections ?? 64;
  const seconds = options.seconds ?? 5;
  const headerArgs = Object.entries(options.headers ?? {}).flatMap(([k, v]) => ['-H', `${k}: ${v}`]);
  const scriptArgs = options.script === undefined ? [] : ['-s', options.script];
  const args = [`-t${options.threads ?? 1}`, `-c${connections}`, `-d${seconds}s`, '--latency', ...headerArgs, ...scriptArgs, url];
  const [command, argv] = canPin ? ['taskset', ['-c', GENERATOR_CORE, 'wrk', ...args]] : ['wrk', args];
  return new Promise((ok, fail) => {
    const child = spawn(command, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (b: Buffer) => (output += b.toString()));
    child.stderr.on('data', (b: Buffer) => (output += b.toString()));
    const t0 = performance.now();
    let ticks = 0;
    let waitMs = 0;
    let sampledAt = t0;
    // taskset execs wrk in place, so the pid is wrk's; sample before it exits and its stat is gone.
    const sampler = setInterval(() => {
      try {
        ticks = cpuTicks(child.pid ?? 0);
        waitMs = runQueueWaitMs(child.pid ?? 0);
        sampledAt = performance.now();
      } catch {
        /* exited between samples */
      }
    }, 200);
    child.on('error', fail);
    child.on('exit', (code) => {
      clearInterval(sampler);
      if (code !== 0) return fail(new Error(`wrk exited ${code}:\n${output}`));
      const wall = (sampledAt - t0) / 1000;
      ok({ ...parseWrk(output), generatorCpu: wall > 0 ? ticks / TICKS_PER_SECOND / wall : Number.NaN, generatorWait: wall > 0 ? waitMs / 1000 / wall : Number.NaN });
    });
  });
}
