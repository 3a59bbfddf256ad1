/**
 * The layering of src/ (README "Architecture"), checked by `npm run lint` (`npm run lint:layers`).
 * Each rule's comment is the sentence the README states; keep the two the same.
 */

/** Imports that carry only types vanish at run time, so the value rules let them through. */
const TYPE_ONLY = ['type-only', 'type-import'];

module.exports = {
  forbidden: [
    {
      name: 'domain-imports-nothing-of-ours',
      comment: 'src/domain is pure logic: it imports nothing of ours outside src/domain (types included).',
      severity: 'error',
      from: { path: '^src/domain/' },
      to: { path: '^(src|web|test|scripts|bench|contracts|bin)/', pathNot: '^src/domain/' },
    },
    {
      name: 'db-imports-only-domain',
      comment: 'src/db is the SQL layer: it imports only src/domain (and itself).',
      severity: 'error',
      from: { path: '^src/db/' },
      to: { path: '^(src|web|test|scripts|bench|contracts|bin)/', pathNot: '^src/(db|domain)/' },
    },
    {
      name: 'services-never-import-http',
      comment: 'src/services are the use cases: they never import src/http (types included).',
      severity: 'error',
      from: { path: '^src/services/' },
      to: { path: '^src/http/' },
    },
    {
      name: 'http-imports-no-db-value',
      comment: 'src/http reaches the database only through services: no value import from src/db (type-only imports are fine).',
      severity: 'error',
      from: { path: '^src/http/' },
      to: { path: '^src/db/', dependencyTypesNot: TYPE_ONLY },
    },
    {
      name: 'services-import-no-db-value-outside-wiring',
      comment:
        'src/services are factories over the ports they declare: only the wiring module src/services/wire* binds them to src/db (type-only imports are fine).',
      severity: 'error',
      from: { path: '^src/services/', pathNot: '^src/services/wire[^/]*$' },
      to: { path: '^src/db/', dependencyTypesNot: TYPE_ONLY },
    },
    {
      name: 'config-parsed-once',
      comment:
        'Configuration is parsed once, in the composition layer: only src/processes, src/cli.ts and the wiring modules src/services/wire-* import a value from src/config.ts; every other module takes its own options type naming what it reads (type-only imports are fine).',
      severity: 'error',
      // Unit tests beside the code build their configuration with testConfig(), like the tests in test/.
      from: { path: '^src/', pathNot: ['^src/processes/', '^src/cli\\.ts$', '^src/services/wire-[^/]*\\.ts$', '^src/config[^/]*\\.ts$', '\\.test\\.ts$'] },
      to: { path: '^src/config\\.ts$', dependencyTypesNot: TYPE_ONLY },
    },
    {
      name: 'no-import-cycles',
      comment: 'No module of src/ reaches itself again through its value imports.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true, dependencyTypesNot: TYPE_ONLY, viaOnly: { dependencyTypesNot: TYPE_ONLY } },
    },
    {
      name: 'no-type-import-cycles',
      comment: 'Cycles that only type imports close are harmless at run time but still a tangle: reported, not failed.',
      severity: 'warn',
      from: { path: '^src/' },
      to: { circular: true },
    },
  ],
  options: {
    // The rules are about src/; tests and scripts may import whatever they exercise.
    includeOnly: '^src/',
    // See type-only imports too, so "type-only imports are fine" is a decision, not an accident.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.mjs', '.cjs', '.json'] },
    moduleSystems: ['es6', 'cjs'],
    exclude: { path: '(^|/)node_modules/' },
    // No cache: its content strategy missed new untracked files and reported stale results.
    cache: false,
  },
};
