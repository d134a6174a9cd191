/**
 * Run before each test file (vitest's setupFiles), also when test files share one module graph
 * (`--no-isolate`): hooks that must run for every file are registered here, not in the fixtures,
 * whose module is evaluated once per worker.
 */
import { afterAll } from 'vitest';
import { removeTempDirs } from './sqlite-fixture.ts';

afterAll(() => removeTempDirs());
