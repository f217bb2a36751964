// The import floors, held by `npm run lint` (dependency-cruiser over every workspace's source):
//
// - no circle anywhere, of values or of types;
// - auth's domain is cut into feature folders (account, admin, email, factors, identity, sign-in) on
//   top of shared/: a feature imports its own folder and shared/, and another feature only through
//   that feature's face (its index.ts); shared/ imports no feature;
// - the join of every feature's ports (domain/ports.ts) is for the composition root (server.ts,
//   create-app.ts) and the entry points alone: an adapter imports the ports it implements from the
//   folder that declares them, and a use case names the ports it works with (`Needs<…>` of its folder).
const DOMAIN = '^services/auth/src/domain/';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A circle of imports (values or types): cut it where one side only needs what the other declares.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'feature-through-its-face',
      severity: 'error',
      comment: "A feature folder reaches another feature through that feature's index.ts, never a file inside it.",
      from: { path: `${DOMAIN}([^/]+)/` },
      to: { path: `${DOMAIN}[^/]+/`, pathNot: [`${DOMAIN}$1/`, `${DOMAIN}shared/`, `${DOMAIN}[^/]+/index\\.ts$`] },
    },
    {
      name: 'shared-below-features',
      severity: 'error',
      comment: "domain/shared/ is below every feature: it imports none (what two features share is declared here, in shared/).",
      from: { path: `${DOMAIN}shared/` },
      to: { path: `${DOMAIN}`, pathNot: `${DOMAIN}shared/` },
    },
    {
      name: 'join-at-the-root',
      severity: 'error',
      comment: "domain/ports.ts joins every feature's ports for the composition root and the entry points alone.",
      from: { pathNot: ['^services/auth/src/(server|create-app)\\.ts$', '^services/auth/src/entry-points/', '\\.test\\.ts$', '^services/auth/test/'] },
      to: { path: `${DOMAIN}ports\\.ts$` },
    },
    {
      name: 'client-stands-alone',
      severity: 'error',
      comment: '@acct/client is installed by apps outside this repository: it imports its own files and openapi-fetch, nothing of the services or the other libs.',
      from: { path: '^libs/client/src/' },
      to: { pathNot: ['^libs/client/src/', 'node_modules/openapi-fetch/', 'node_modules/openapi-typescript-helpers/'] },
    },
    {
      name: 'pages-through-the-client',
      severity: 'error',
      comment: 'The hosted pages reach the API through @acct/client alone: no fetch layer of their own beside it.',
      from: { path: '^apps/web/src/' },
      to: { path: 'node_modules/openapi-fetch/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(dist|node_modules)/' },
    // Type-only imports count: a circle of types binds the folders as much as one of values.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
