/**
 * The architecture rules of README § Architecture, as a check: `npm test` runs it
 * (test/architecture/rules.test.ts), `npm run graph` prints the module graph and
 * what breaks a rule. Type-only imports count (tsPreCompilationDeps), and so do
 * dynamic `await import()`s: a lazily loaded module is still a dependency.
 *
 * One rule is not here because dependency-cruiser sees imports, not globals:
 * "only src/cli/main.ts touches `process`" is test/architecture/process.test.ts.
 */

const { readdirSync } = require('node:fs');
const { join } = require('node:path');

/**
 * src/commands' folders: a noun's (its commands in folders of their own,
 * `records/get/`, beside its shared files) or a command's own (`api/`,
 * `sync/`: no folder in it). A command's folder holds no shared files: what
 * its run.ts does is its own.
 */
const COMMANDS = join(__dirname, 'src', 'commands');
const folders = readdirSync(COMMANDS, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name);
const isNoun = (f) => readdirSync(join(COMMANDS, f), { withFileTypes: true }).some((d) => d.isDirectory());
const ONE_LEVEL = `(${folders.filter((f) => !isNoun(f)).join('|')})`;
const NOUNS = `(${folders.filter(isNoun).join('|')})`;

/** The base every part may use, and which itself uses nothing else of svc. */
const BASE = '^src/(catalogue|util)/|^src/(errors|version)[.]ts$';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'only-http-imports-undici',
      comment:
        'undici is loaded by src/http alone (only for a proxy: node:http serves the rest, to keep start-up small); ' +
        'everything else sends requests through src/http.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/http/' },
      to: { path: '(^|/)node_modules/undici/' },
    },
    {
      name: 'lower-layers-never-import-cli',
      comment:
        'output, export, filter, records, http, auth, config, sync, watch and import are used by commands, never the other way round: ' +
        'they take what they need (streams, options, env) as arguments, not from src/cli or src/commands.',
      severity: 'error',
      from: { path: '^src/(output|export|filter|records|http|auth|config|sync|watch|import)/' },
      to: { path: '^src/(cli|commands)/' },
    },
    {
      name: 'sandbox-imports-no-client-code',
      comment:
        'the sandbox emulates the service: it shares the catalogue and the base (src/catalogue, src/util, ' +
        'src/errors.ts, src/version.ts) with the client and nothing else, so it cannot drift towards what the client does.',
      severity: 'error',
      from: { path: '^src/sandbox/' },
      to: { path: '^src/', pathNot: `^src/sandbox/|${BASE}` },
    },
    {
      name: 'base-is-a-leaf',
      comment:
        'src/catalogue, src/util, src/errors.ts and src/version.ts import only each other, so whatever may import ' +
        'the base (the sandbox above all) gets nothing else through it.',
      severity: 'error',
      from: { path: BASE },
      to: { path: '^src/', pathNot: BASE },
    },
    {
      name: 'verb-imports-no-other-verb',
      comment:
        'a command folder src/commands/<noun>/<verb>/ imports its own files, shared files (src/commands/<noun>/*.ts, ' +
        "its noun's or another's) and anything outside src/commands; never another command's folder. What two " +
        "verbs share moves up to the noun's shared files (or out of src/commands).",
      severity: 'error',
      from: { path: '^src/commands/([^/]+)/([^/]+)/' },
      to: { path: '^src/commands/', pathNot: ['^src/commands/$1/$2/', `^src/commands/${NOUNS}/[^/]+[.]ts$`] },
    },
    {
      name: 'command-imports-no-other-command',
      comment:
        "a command's own folder one level down (src/commands/api/, sync/, version/, …) imports its own files, a noun's " +
        "shared files and anything outside src/commands; never another command's folder.",
      severity: 'error',
      from: { path: `^src/commands/${ONE_LEVEL}/` },
      to: { path: '^src/commands/', pathNot: ['^src/commands/$1/', `^src/commands/${NOUNS}/[^/]+[.]ts$`] },
    },
    {
      name: 'shared-files-import-only-command-data',
      comment:
        "a noun's shared files (src/commands/<noun>/*.ts) reach into its own command folders for their command.ts " +
        "only (the command's data, to register it) and into no other noun's command folders: never a verb's run or " +
        'request, which load lazily when the command runs.',
      severity: 'error',
      from: { path: `^src/commands/${NOUNS}/[^/]+[.]ts$` },
      to: { path: '^src/commands/[^/]+/[^/]+/', pathNot: '^src/commands/$1/[^/]+/command[.]ts$' },
    },
    {
      name: 'no-circular',
      comment:
        'no import cycles, type-only and dynamic imports included: a cycle means two modules are one module ' +
        'in two files, and it decides module initialisation order by accident.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'an import that resolves to no file.',
      severity: 'error',
      from: { path: '^src/' },
      to: { couldNotResolve: true },
    },
    {
      name: 'no-dev-dependencies-in-the-product',
      comment:
        'the bundle (src/ but the generator) uses dependencies only; devDependencies (cli-table3, csv-stringify, ' +
        'fast-check, …) are test oracles and tools.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/gen/' },
      to: { dependencyTypes: ['npm-dev'], dependencyTypesNot: ['type-only'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default'],
      mainFields: ['module', 'main'],
      extensions: ['.ts', '.js', '.mjs', '.cjs', '.json'],
    },
    reporterOptions: {
      text: { highlightFocused: true },
      archi: { collapsePattern: '^src/(commands/[^/]+|[^/]+)' },
      dot: { collapsePattern: 'node_modules/(@[^/]+/[^/]+|[^/]+)' },
    },
  },
};
