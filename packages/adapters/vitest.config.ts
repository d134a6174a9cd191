import { defineProject } from 'vitest/config';
import { sourceEnv, sourceResolution } from '../../vitest.shared.ts';
// Timeouts catch a hang, not slowness: on a machine busy with other work, vitest's 5 s default
// failed tests that pass in a second when it is quiet (a property test of 2,500 runs, 1 MiB range reads).
export default defineProject({ ...sourceResolution, test: { name: 'adapters', include: ['src/**/*.test.ts', 'test/**/*.test.ts'], setupFiles: ['test/each-file.ts'], env: sourceEnv, testTimeout: 30_000, hookTimeout: 30_000 } });
