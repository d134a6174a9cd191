import { defineProject } from 'vitest/config';
import { sourceEnv, sourceResolution } from '../../vitest.shared.ts';
export default defineProject({ ...sourceResolution, test: { name: 'domain', include: ['src/**/*.test.ts', 'test/**/*.test.ts'], env: sourceEnv } });
