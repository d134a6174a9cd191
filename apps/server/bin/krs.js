#!/usr/bin/env node
// The `krs` command runs the compiled JavaScript in dist/, which `pnpm install` builds (prepare)
// and `pnpm start` / `pnpm krs` rebuild whenever a source is newer.
import { existsSync } from 'node:fs';

const cli = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(cli)) {
  process.stderr.write('krs: the server is not built; run `pnpm install` (or `pnpm build`) in the krs checkout\n');
  process.exit(2);
}
await import(cli.href);
