/**
 * The layering of src/, checked on every `npm test` (dependency-cruiser).
 * From the bottom: engine/ (standalone) | errors/, logger, config, shared/, metrics/ |
 * graphql/, http/ (generic mechanisms) | auth/ | events/ | audit/ | the areas (users/, menus/,
 * api-keys/, schemas/, webhooks/) | the composition root (service.ts) and entry points.
 * A folder imports only from below it; areas meet only through shared/.
 */
const AREAS = '(users|menus|api-keys|schemas|webhooks)';
const ROOT = 'src/(service|index|cli|cli-backup|emit-schema|emit-openapi|openapi-file|database|webhook-delivery|webhook-delivery-thread)[.]ts$';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    { name: 'no-circular', severity: 'error', comment: 'No import cycles, type-only ones included.', from: {}, to: { circular: true } },
    {
      name: 'engine-is-standalone',
      severity: 'error',
      comment: 'The engine runs on its own (npm run engine): it knows nothing of the service.',
      from: { path: '^src/engine/' },
      to: { path: '^src/', pathNot: '^src/engine/' },
    },
    {
      name: 'engine-through-its-entry',
      severity: 'error',
      comment:
        'The service reaches the engine only through src/engine/index.ts, its thread (src/engine/thread/index.ts: the engine in a worker thread), or its collation key ' +
        '(src/engine/collation/index.ts: no server, no storage), with which emails are folded as their lookup compares them.',
      from: { path: '^src/', pathNot: '^src/engine/' },
      to: { path: '^src/engine/', pathNot: '^src/engine/(collation/|thread/)?index[.]ts$' },
    },
    // The engine's own layers, from the bottom: model/ and collation/ (shapes and string order
    // every layer shares) | query/ (filters, sorts, updates over documents) | storage/ (keeps
    // documents and indexes, using query/ for keys and partial filters) | the command layers.
    {
      name: 'engine-floor-stays-below',
      severity: 'error',
      comment: 'model/ and collation/ are the floor both query/ and storage/ stand on: they import no other engine folder.',
      from: { path: '^src/engine/(model|collation)/' },
      to: { path: '^src/engine/', pathNot: '^src/engine/$1/' },
    },
    {
      name: 'engine-query-below-storage',
      severity: 'error',
      comment:
        'query/ works on documents alone: it imports only the floor (model/, collation/, errors.ts), never storage/ ' +
        '(which imports query/) or a layer above; a shape both need belongs in model/.',
      from: { path: '^src/engine/query/' },
      to: { path: '^src/engine/', pathNot: '^src/engine/(query/|model/|collation/|errors[.]ts$)' },
    },
    {
      name: 'engine-storage-below-commands',
      severity: 'error',
      comment: 'storage/ is reached by the command layers (reads/, writes/, cursors/, commands/, ...) and knows none of them.',
      from: { path: '^src/engine/storage/' },
      to: { path: '^src/engine/', pathNot: '^src/engine/(storage/|query/|model/|collation/|errors[.]ts$)' },
    },
    {
      name: 'folders-through-their-entry',
      severity: 'error',
      comment:
        'Every top-level folder of src/ states its public face in its index.ts: any other folder, and the root files, ' +
        'import only that (inside a folder, files import each other directly). The engine has its own rule above.',
      from: { path: '^src/([^/]+)' },
      to: { path: '^src/(?!engine/)[^/]+/', pathNot: ['^src/$1/', '^src/[^/]+/index[.]ts$'] },
    },
    {
      name: 'base-stays-below',
      severity: 'error',
      comment: 'errors/, logger, config, shared/ and metrics/ are the floor: they import nothing above them.',
      from: { path: '^src/(errors/|shared/|metrics/|logger[.]ts|config[.]ts)' },
      to: { path: `^src/(auth|events|audit|http|graphql|${AREAS})/|${ROOT}` },
    },
    {
      name: 'mechanisms-know-no-area',
      severity: 'error',
      comment: 'graphql/ and http/ are generic: schema, routes and context come from the composition root.',
      from: { path: '^src/(graphql|http)/' },
      to: { path: `^src/(auth|events|audit|${AREAS})/|${ROOT}` },
    },
    {
      name: 'graphql-below-http',
      severity: 'error',
      from: { path: '^src/graphql/' },
      to: { path: '^src/http/' },
    },
    {
      name: 'auth-knows-no-area',
      severity: 'error',
      comment: 'auth/ reads users through its AccountStore port, which the users area implements.',
      from: { path: '^src/auth/' },
      to: { path: `^src/(events|audit|${AREAS})/|${ROOT}` },
    },
    {
      name: 'events-knows-no-area',
      severity: 'error',
      comment: 'Events (the outbox, its tail, the event log) are a mechanism the audit trail and the areas use; they import none of them.',
      from: { path: '^src/events/' },
      to: { path: `^src/(audit|${AREAS})/|${ROOT}` },
    },
    {
      name: 'audit-knows-no-area',
      severity: 'error',
      comment: 'The audit trail is a mechanism every area uses; it imports none of them.',
      from: { path: '^src/audit/' },
      to: { path: `^src/${AREAS}/|${ROOT}` },
    },
    {
      name: 'areas-meet-through-shared',
      severity: 'error',
      comment: 'An area never imports another area (nor the composition root).',
      from: { path: `^src/${AREAS}/` },
      to: { path: `^src/${AREAS}/|${ROOT}`, pathNot: '^src/$1/' },
    },
    {
      name: 'src-not-to-tests-or-dev-deps',
      severity: 'error',
      from: { path: '^src/' },
      to: { dependencyTypes: ['npm-dev'], dependencyTypesNot: ['type-only'] },
    },
    { name: 'src-not-to-test', severity: 'error', from: { path: '^src/' }, to: { path: '^(test|bench)/' } },
    { name: 'not-to-unresolvable', severity: 'error', from: {}, to: { couldNotResolve: true } },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'], extensions: ['.ts', '.js', '.d.ts'] },
  },
};
