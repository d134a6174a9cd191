/**
 * Tests run on the TypeScript sources of the workspace packages: the `@krs/source` export
 * condition points each package at its `src`, for the test files and, through NODE_OPTIONS, for
 * TypeScript helpers they run as processes. The server and the `krs` command run as processes
 * from dist/, built from those same sources before the suite (apps/server/test/build-dist.ts).
 */
const conditions = ['@krs/source', 'module', 'node', 'development|production'];

export const sourceResolution = {
  resolve: { conditions },
  ssr: { resolve: { conditions } },
};

export const sourceEnv = {
  NODE_OPTIONS: [process.env.NODE_OPTIONS, '--conditions=@krs/source'].filter(Boolean).join(' '),
};

/**
 * Test files share one module graph per worker instead of importing the workspace's sources again
 * for each file. On a 2-core machine vitest runs one worker, and re-importing per file cost about
 * 90 s of a 350 s suite. No test mocks a module or leaves global state behind; a test that starts
 * to need that must say so by setting `isolate: true` in its project.
 */
export const sharedModuleGraph = { isolate: false } as const;
