/**
 * The server secret access-link tokens are derived from, kept in the data dir when the operator
 * sets no `KRS_SECRET_KEY`: a random key created once (mode 0600) and read on every start, so links
 * survive restarts and every process on the same data dir agrees. Removing the file revokes every
 * access link.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, linkSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';

export function readOrCreateSecretKey(path: string): string {
  // Written whole to a private temp file, then linked into place: a process starting beside this
  // one (the CLI next to the server) either sees no key or the complete one, and one key wins.
  const temp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const fd = openSync(temp, 'wx', 0o600);
  try {
    writeSync(fd, `${randomBytes(32).toString('hex')}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(temp, path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  } finally {
    unlinkSync(temp);
  }
  const key = readFileSync(path, 'utf8').trim();
  if (key.length < 32) throw new Error(`The secret key file ${path} is damaged; removing it creates a new key and revokes every access link.`);
  return key;
}
