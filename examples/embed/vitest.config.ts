import { defineProject } from 'vitest/config';
// Packing, an offline install and a type check: seconds when the pnpm store is warm, longer when
// better-sqlite3 must first be compiled for this Node.
export default defineProject({ test: { name: 'embed', include: ['test/**/*.test.ts'], testTimeout: 300_000 } });
