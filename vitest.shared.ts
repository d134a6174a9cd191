/**
 * Tests run on the TypeScript sources of the workspace packages, never on their build: the
 * `@krs/source` export condition points each package at its `src`. Processes the tests start
 * (the server, the `krs` command) get the same condition through NODE_OPTIONS.
 */
const conditions = ['@krs/source', 'module', 'node', 'development|production'];

export const sourceResolution = {
  resolve: { conditions },
  ssr: { resolve: { conditions } },
};

export const sourceEnv = {
  NODE_OPTIONS: [process.env.NODE_OPTIONS, '--conditions=@krs/source'].filter(Boolean).join(' '),
};
