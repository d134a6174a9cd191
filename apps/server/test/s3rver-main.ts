/**
 * `tsx test/s3rver-main.ts <dir> <bucket>`: the patched s3rver (packages/adapters/test/s3rver-server.ts)
 * as a process of its own for the end-to-end tests; prints "listening on 127.0.0.1:<port>".
 */
import { startPatchedS3rver } from '../../../packages/adapters/test/s3rver-server.ts';

const [directory, bucket] = process.argv.slice(2);
if (!directory || !bucket) throw new Error('usage: s3rver-main.ts <dir> <bucket>');
const { server, port } = await startPatchedS3rver(directory, bucket);
process.stdout.write(`listening on 127.0.0.1:${port}\n`);
const stop = () => void server.close().finally(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
