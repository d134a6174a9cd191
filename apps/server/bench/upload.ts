/**
 * A large file through `PUT /api/records/{id}/draft/files/{key}/content`, streamed from the bench
 * process, with the server's memory read from `/proc` around it: the figures bench/run.ts and
 * bench/stacks.ts report for the upload path.
 */
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import { statusKiB } from './server-process.ts';

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
