// The layer rules of src/ (README, "Layout"), checked by `npm run lint` and CI: no import cycle, and each
// folder imports only the folders it is listed with below. A data path runs upwards, registry -> search ->
// api -> web, with accounts, billing and monitoring beside it; src/main wires them; src/cli runs it.
const BASE = ['config', 'clock', 'metrics', 'workers'];
/** Every room below the API and the web app. */
const DOMAIN = [
  'db',
  'jobs',
  'ratelimit',
  'text',
  'registry',
  'search',
  'sample',
  'accounts',
  'billing',
  'monitoring',
  'matching',
  'exports',
  'snapshots',
];
/** Each room and the rooms it may import (besides itself and BASE). */
const MAY_IMPORT = {
  db: [],
  jobs: [],
  ratelimit: [],
  text: [],
  registry: ['db', 'jobs', 'text'],
  search: ['db', 'text', 'registry'],
  accounts: ['db', 'jobs'],
  billing: ['db', 'jobs', 'accounts'],
  monitoring: ['db', 'jobs', 'text', 'registry', 'search', 'accounts'],
  sample: ['db', 'text', 'registry'],
  // Match jobs: the search's matcher, charged through the accounts' gate, their end an event of monitoring's.
  matching: ['db', 'jobs', 'search', 'accounts', 'monitoring'],
  // Exports: written by the background workers, charged through the accounts' gate, their end an event.
  exports: ['db', 'jobs', 'accounts', 'monitoring'],
  // Bulk snapshots: the registry's records, written by the background workers with the exports' file writers.
  snapshots: ['db', 'jobs', 'registry', 'exports'],
  api: [
    'db',
    'jobs',
    'ratelimit',
    'text',
    'registry',
    'search',
    'accounts',
    'billing',
    'monitoring',
    'matching',
    'exports',
    'snapshots',
  ],
  web: ['db', 'ratelimit', 'text', 'registry', 'accounts', 'billing', 'monitoring', 'matching', 'exports', 'api'],
  // The composition root wires every room; the command line runs it.
  main: [...DOMAIN, 'api', 'web'],
  cli: [...DOMAIN, 'api', 'web', 'main'],
};
const room = (name) => (BASE.includes(name) && name !== 'config' ? `src/${name}\\.ts$` : `src/${name}/`);
const rooms = (names) => `^(${names.map(room).join('|')})`;

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'Files import each other in a circle.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'search-through-its-index',
      comment: 'Other rooms use the search through its public interface, src/search/index.ts.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/search/' },
      to: { path: '^src/search/', pathNot: '^src/search/index\\.ts$' },
    },
    {
      name: 'web-through-the-operation-table',
      comment: 'The web app talks to the API only through the operation table (and its error catalog).',
      severity: 'error',
      from: { path: '^src/web/' },
      to: { path: '^src/api/', pathNot: '^src/api/(operation\\.ts|operations/|errors\\.ts)' },
    },
    { name: 'not-to-unresolvable', severity: 'error', from: {}, to: { couldNotResolve: true } },
  ],
  allowed: [
    { from: {}, to: { dependencyTypes: ['core', 'npm', 'npm-dev', 'npm-optional', 'npm-peer', 'npm-no-pkg'] } },
    { from: { path: rooms(BASE) }, to: { path: rooms(BASE) } },
    ...Object.entries(MAY_IMPORT).map(([from, to]) => ({
      from: { path: `^src/${from}/` },
      to: { path: rooms([from, ...BASE, ...to]) },
    })),
  ],
  allowedSeverity: 'error',
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
