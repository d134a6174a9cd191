export default ['packages/domain', 'packages/adapters', 'apps/server', 'examples/embed'];
