import { defineProject } from 'vitest/config';
export default defineProject({ test: { name: 'server', include: ['src/**/*.test.ts', 'test/**/*.test.ts'], testTimeout: 60000, hookTimeout: 60000 } });
