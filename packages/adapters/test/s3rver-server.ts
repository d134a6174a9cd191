/**
 * s3rver, made to answer as S3 does where the tests meet it, for the adapter tests (in process)
 * and the server's end-to-end tests (a process of its own, `apps/server/test/s3rver-main.ts`).
 */
import { createReadStream, type ReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import S3rver, { type S3rverContext } from 's3rver';

/**
 * s3rver 3.7 answers two kinds of range unlike S3: `bytes=0-0` (it reads an end of 0 as none and
 * sends everything) and any range of an empty object (a 206 promising one byte it never sends,
 * so the client waits). S3 sends the one byte, and answers 416 InvalidRange; so does this.
 */
async function rangesAsS3Does(ctx: S3rverContext, next: () => Promise<void>): Promise<void> {
  await next();
  const asked = /^bytes=(\d+)-(\d+)$/.exec(ctx.get('range'));
  const served = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(ctx.response.get('content-range'));
  if (ctx.method !== 'GET' || ctx.status !== 206 || !asked || !served) return;
  const body = ctx.body as ReadStream;
  const total = Number(served[3]);
  if (total === 0) {
    body.destroy();
    ctx.status = 416;
    ctx.type = 'application/xml';
    ctx.body = '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>InvalidRange</Code><Message>The requested range is not satisfiable</Message></Error>';
    return;
  }
  const start = Number(asked[1]);
  const end = Math.min(Number(asked[2]), total - 1);
  if (end >= Number(served[2])) return;
  body.destroy();
  ctx.body = createReadStream(body.path, { start, end });
  ctx.set('Content-Range', `bytes ${start}-${end}/${total}`);
  ctx.length = end + 1 - start;
}

interface Store {
  putObject(object: { bucket: string; key: string }): Promise<{ size: number; md5: string }>;
  getResourcePath(bucket: string, key: string, resource: string): string;
}

/**
 * s3rver 3.7 answers a PUT once its body has passed its md5 transform, before the file holding
 * the object is fully written (it resolves on the transform's 'finish', not the file's), so a
 * GET straight after can read a short or empty object. S3 is read-after-write consistent: the
 * object is whole once the PUT answered. This waits until the file has the object's size.
 */
function putAsS3Does(store: Store): void {
  const put = store.putObject.bind(store);
  store.putObject = async (object) => {
    const done = await put(object);
    const file = store.getResourcePath(object.bucket, object.key, 'object');
    for (let i = 0; i < 1000 && (await stat(file)).size < done.size; i++) await new Promise((r) => setTimeout(r, 1));
    return done;
  };
}

/** s3rver on a free port of 127.0.0.1, keeping its objects in `directory`, with `bucket` made. */
export async function startPatchedS3rver(directory: string, bucket: string): Promise<{ server: S3rver; port: number }> {
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: bucket }] });
  server.middleware.unshift(rangesAsS3Does);
  putAsS3Does((server as unknown as { store: Store }).store);
  const { port } = await server.run();
  return { server, port };
}
