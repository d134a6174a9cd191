// `pnpm test` runs them with --no-isolate: test files share one module graph per worker instead of
// importing the workspace's sources again for each file. On 2 cores vitest runs one worker, and
// re-importing per file cost about 90 s of a 350 s suite. (Set in a project's config, isolate had
// no effect on the forks pool.) No test mocks a module or leaves global state behind.
export default ['packages/domain', 'packages/adapters', 'apps/server', 'examples/embed'];
