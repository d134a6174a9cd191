import { defineProject } from 'vitest/config';
// Packing, an offline install and a type check: seconds when the pnpm store is warm, longer when
// better-sqlite3 must first be compiled for this Node. It runs after the other projects, so that
// its build of the packages (prepack) never overlaps the server build of compiled-server.test.ts.
export default defineProject({ test: { name: 'embed', include: ['test/**/*.test.ts'], testTimeout: 300_000, sequence: { groupOrder: 1 } } });
