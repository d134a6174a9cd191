import { defineProject } from 'vitest/config';
import { sourceEnv, sourceResolution } from '../../vitest.shared.ts';
export default defineProject({
  ...sourceResolution,
  test: { name: 'server', include: ['src/**/*.test.ts', 'test/**/*.test.ts'], globalSetup: ['test/build-dist.ts'], testTimeout: 60000, hookTimeout: 60000, env: sourceEnv },
});
