/**
 * A large file through `PUT /api/records/{id}/draft/files/{key}/content`, streamed from the bench
 * process, with the server's memory read from `/proc` around it, next to a plain fs write of the
 * same bytes with fsync (target >= 70% of its MiB/s, under 64 MiB of extra server RSS): the
 * upload part of `pnpm bench` (bench/run.ts); bench/stacks.ts uses `measureUpload` too.
 *   `tsx bench/upload.ts` runs the part alone (`BENCH_UPLOAD_MIB`, `BENCH_UPLOAD_ROUNDS`,
 *   `BENCH_UPLOAD_PORT`).
 */
import { execFileSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { serverDir, startCompiled, statusKiB, stop, tsx } from './server-process.ts';
import type { PartResult, SummaryRow } from './summary-table.ts';

const UPLOAD_ROUNDS = Number(process.env['BENCH_UPLOAD_ROUNDS'] ?? 3);
const UPLOAD_PORT = Number(process.env['BENCH_UPLOAD_PORT'] ?? 3900);
const UPLOAD_TARGET = 0.7;
const UPLOAD_EXTRA_RSS_TARGET_MIB = 64;

export interface UploadResult {
  mibPerSecond: number;
  /** Server RSS just before the upload, and its peak during it, in MiB. */
  rssBefore: number;
  rssPeak: number;
}

const mib = (n: number) => n / 1024 / 1024;

async function call(method: string, url: string, token: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(url, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`${method} ${url} answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as Record<string, unknown>;
}

/** Streams `total` bytes of a repeated 1 MiB chunk; the client never holds the whole body. */
function streamUpload(url: string, token: string, total: number): Promise<number> {
  const chunk = Buffer.alloc(1024 * 1024, 7);
  return new Promise((ok, fail) => {
    const t0 = performance.now();
    const req = http.request(url, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream', 'content-length': total },
    });
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 200 ? ok((performance.now() - t0) / 1000) : fail(new Error(`upload answered ${res.statusCode}`))));
    });
    req.on('error', fail);
    let sent = 0;
    const pump = () => {
      while (sent < total) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', pump);
      }
      req.end();
    };
    pump();
  });
}

/** Makes a draft with one file entry on the server at `base` (process `pid`) and uploads `total` bytes into it. */
export async function measureUpload(base: string, token: string, pid: number, total: number): Promise<UploadResult> {
  const metadata = {
    title: 'Benchmark record about flood extent in the Niger delta',
    publication_date: '2024-01-01',
    resource_type: { id: 'dataset' },
    creators: [{ person_or_org: { type: 'personal', given_name: 'Ada', family_name: 'Obi' } }],
  };
  const draft = await call('POST', `${base}/api/records`, token, { metadata });
  await call('POST', `${base}/api/records/${String(draft['id'])}/draft/files`, token, [{ key: 'big.bin' }]);
  // Reset the kernel's peak-RSS mark so the peak below belongs to the upload alone.
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
  const rssBefore = statusKiB(pid, 'VmRSS') / 1024;
  const seconds = await streamUpload(`${base}/api/records/${String(draft['id'])}/draft/files/big.bin/content`, token, total);
  return { mibPerSecond: mib(total) / seconds, rssBefore, rssPeak: statusKiB(pid, 'VmHWM') / 1024 };
}

async function plainWrite(dir: string, total: number): Promise<number> {
  const chunk = Buffer.alloc(1024 * 1024, 7);
  const file = join(dir, 'plain.bin');
  const t0 = performance.now();
  const out = createWriteStream(file);
  for (let sent = 0; sent < total; sent += chunk.length) {
    if (!out.write(chunk)) await new Promise<void>((r) => out.once('drain', () => r()));
  }
  await new Promise<void>((r) => out.end(r));
  const handle = await open(file, 'r+');
  await handle.sync();
  await handle.close();
  const seconds = (performance.now() - t0) / 1000;
  rmSync(file);
  return seconds;
}

/**
 * Has the kernel write out every dirty page first, so that neither figure pays for the writeback
 * of what ran before it (the write part's WAL, the other figure's gigabyte), which the kernel
 * does whenever it chooses.
 */
function settleDisk(): void {
  execFileSync('sync');
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

/** The upload part of `pnpm bench`: `rounds` of a plain write and an upload of `uploadMib` MiB, taking turns. */
export async function uploadBench(uploadMib: number, rounds = UPLOAD_ROUNDS): Promise<PartResult> {
  const dataDir = mkdtempSync(join(tmpdir(), 'krs-bench-'));
  const port = UPLOAD_PORT;
  const base = `http://127.0.0.1:${port}`;
  const env = { ...process.env, PORT: String(port), KRS_DATA_DIR: dataDir, KRS_BASE_URL: base, INIT_CWD: serverDir };
  const token = execFileSync(tsx, ['src/cli.ts', 'tokens', 'create', '--user', 'bench@example.org'], { cwd: serverDir, env, encoding: 'utf8' }).trim();
  // From dist/ (up to date already when the http part ran before).
  execFileSync('pnpm', ['exec', 'tsc', '-b', 'tsconfig.build.json'], { cwd: serverDir, stdio: 'inherit' });
  const { child: server } = await startCompiled(env);
  const total = uploadMib * 1024 * 1024;
  // The plain write and the upload take turns, each after the disk has settled, over several
  // rounds: the disk's own rate moves from one minute to the next by more than the target's margin.
  const runs: { upload: UploadResult; plainRate: number }[] = [];
  try {
    for (let round = 0; round < rounds; round++) {
      settleDisk();
      const plainRate = mib(total) / (await plainWrite(dataDir, total));
      settleDisk();
      runs.push({ upload: await measureUpload(base, token, server.pid ?? 0, total), plainRate });
    }
  } finally {
    await stop(server);
    rmSync(dataDir, { recursive: true, force: true });
  }

  const uploadRate = median(runs.map((r) => r.upload.mibPerSecond));
  const plainRate = median(runs.map((r) => r.plainRate));
  const extraRss = Math.max(...runs.map((r) => r.upload.rssPeak - r.upload.rssBefore));
  const rssBefore = Math.min(...runs.map((r) => r.upload.rssBefore));
  const rssPeak = Math.max(...runs.map((r) => r.upload.rssPeak));
  const pct = (x: number) => `${(x * 100).toFixed(0)}%`;
  const ratio = uploadRate / plainRate;
  const text = [
    `upload ${uploadMib} MiB            ${uploadRate.toFixed(0)} MiB/s (median of ${runs.length}), server RSS ${rssBefore.toFixed(0)} MiB before, peak ${rssPeak.toFixed(0)} MiB (largest rise +${extraRss.toFixed(0)} MiB)`,
    `plain fs write + fsync  ${plainRate.toFixed(0)} MiB/s (median of ${runs.length})`,
    `  rounds (plain, then upload, each after a sync): ${runs.map((r) => `${r.plainRate.toFixed(0)}/${r.upload.mibPerSecond.toFixed(0)}`).join(', ')} MiB/s`,
    `  ratio ${pct(ratio)} of the plain write (target >= ${pct(UPLOAD_TARGET)}: ${ratio >= UPLOAD_TARGET ? 'met' : 'NOT met'}); extra RSS target < ${UPLOAD_EXTRA_RSS_TARGET_MIB} MiB: ${extraRss < UPLOAD_EXTRA_RSS_TARGET_MIB ? 'met' : 'NOT met'}`,
  ].join('\n');
  const scenario = `PUT .../content, ${uploadMib} MiB`;
  const rows: SummaryRow[] = [
    { part: 'upload', scenario, krs: `${uploadRate.toFixed(0)} MiB/s`, plain: `${plainRate.toFixed(0)} MiB/s`, ratio: pct(ratio), target: `>= ${pct(UPLOAD_TARGET)} of plain`, met: ratio >= UPLOAD_TARGET },
    {
      part: 'upload',
      scenario: `${scenario}: extra server RSS`,
      krs: `+${extraRss.toFixed(0)} MiB`,
      plain: null,
      ratio: null,
      target: `< ${UPLOAD_EXTRA_RSS_TARGET_MIB} MiB`,
      met: extraRss < UPLOAD_EXTRA_RSS_TARGET_MIB,
    },
  ];
  return { text, rows };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log((await uploadBench(Number(process.env['BENCH_UPLOAD_MIB'] ?? 1024))).text);
}
