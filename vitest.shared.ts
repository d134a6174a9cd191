/**
 * Tests run on the TypeScript sources of the workspace packages: the `@krs/source` export
 * condition points each package at its `src`, for the test files and, through NODE_OPTIONS, for
 * TypeScript helpers they run as processes. The server and the `krs` command run as processes
 * from dist/, built from those same sources before the suite (apps/server/test/build-dist.ts).
 */
const conditions = ['@krs/source', 'module', 'node', 'development|production'];
/**
 * Tests run in Node, so their dependencies resolve as Node resolves them. With `module` here, a
 * project run alone (`vitest run` in apps/server) loaded the AWS SDK's `dist-es` build, whose
 * imports Node cannot resolve.
 */
const ssrConditions = ['@krs/source', 'node', 'development|production'];

export const sourceResolution = {
  resolve: { conditions },
  ssr: { resolve: { conditions: ssrConditions } },
};

export const sourceEnv = {
  NODE_OPTIONS: [process.env.NODE_OPTIONS, '--conditions=@krs/source'].filter(Boolean).join(' '),
};
