/**
 * The `svc sandbox` command group: its words, options and help. Cheap to
 * build: the bodies (and the sandbox server) load only when a command runs.
 */
import { Option, type Command } from 'commander';
import type { View } from '../../../output/view.js';
import { createContext, emit } from '../../legacy.js';
import type { Deps } from '../../deps.js';
import type { SandboxIo } from './io.js';
import { DEFAULT_PORT, parseFaults, parsePort, parseSeedAccounts } from './options.js';

interface SandboxFlags {
  dataDir?: string;
  port?: number;
  seedAccounts?: number;
  faults?: number;
  https?: boolean;
  foreground?: boolean;
}

const DATA_DIR_HELP = 'the sandbox data dir (default: $SVC_SANDBOX_DIR, else $XDG_DATA_HOME/svc/sandbox, else ~/.local/share/svc/sandbox)';
const SEED_HELP = 'accounts in a newly seeded tenant (an existing tenant keeps its data; see reset)';

const START_HELP = `
The sandbox runs in the background on 127.0.0.1; start prints its instance URL and the
demo user's and svc-cli application's credentials (with -o json: one object with
instanceUrl, user, password, appsecret, and caFile under --https).

Examples:
  svc sandbox start
  svc sandbox start --port 0 -o json
  svc sandbox start --https
  svc sandbox start --foreground       # in this terminal, one log line per request
`;

const STATUS_HELP = `
Exit codes: 0 a sandbox runs from the data dir and answers; 3 none runs.
`;

async function withIo(self: Command, deps: Deps, body: (io: SandboxIo, dataDir: string, flags: SandboxFlags) => Promise<void>): Promise<void> {
  const { createSandboxIo } = await import('./io.js');
  const { resolveDataDir } = await import('./data-dir.js');
  const flags = self.opts<SandboxFlags>();
  const show = (view: View): Promise<void> => emit(self, deps, () => view);
  const io = createSandboxIo(deps, createContext(self, deps).format, show);
  await body(io, resolveDataDir(flags.dataDir, deps.env), flags);
}

function dataDirOption(): Option {
  return new Option('--data-dir <dir>', DATA_DIR_HELP);
}

/** Adds `svc sandbox start|status|stop|reset` to the program. */
export function addSandboxCommands(program: Command, deps: Deps): void {
  const group = program.command('sandbox').description('run the local sandbox of the service: start, status, stop, reset');
  group
    .command('start')
    .description('start the sandbox in the background and print its URL and credentials')
    .addOption(new Option('--port <n>', `port on 127.0.0.1; 0 picks a free one`).default(DEFAULT_PORT).argParser(parsePort))
    .addOption(dataDirOption())
    .addOption(new Option('--seed-accounts <n>', SEED_HELP).argParser(parseSeedAccounts))
    .addOption(new Option('--faults <rate>', 'fail this share of requests at random (503, 429, dropped connections, slow answers), e.g. 0.1').argParser(parseFaults))
    .option('--https', 'serve HTTPS with a self-signed certificate kept in the data dir; prints the CA file to trust')
    .option('--foreground', 'run in this process, log each request to stderr, stop on Ctrl-C or SIGTERM')
    .addHelpText('after', START_HELP)
    .action(async (_opts: unknown, self: Command) => {
      await withIo(self, deps, async (io, dataDir, f) => {
        const opts = { dataDir, port: f.port ?? DEFAULT_PORT, https: f.https === true, seedAccounts: f.seedAccounts, faults: f.faults };
        if (f.foreground) return (await import('./foreground.js')).runForeground(opts, io);
        return (await import('./background.js')).startInBackground(opts, io);
      });
    });
  group
    .command('status')
    .description('say whether a sandbox runs from the data dir, with its URL and pid')
    .addOption(dataDirOption())
    .addHelpText('after', STATUS_HELP)
    .action(async (_opts: unknown, self: Command) => {
      await withIo(self, deps, async (io, dataDir) => io.show(await (await import('./lifecycle.js')).statusView(dataDir, io)));
    });
  group
    .command('stop')
    .description('stop the sandbox of the data dir (not running is fine)')
    .addOption(dataDirOption())
    .action(async (_opts: unknown, self: Command) => {
      await withIo(self, deps, async (io, dataDir) => (await import('./lifecycle.js')).runStop(dataDir, io));
    });
  group
    .command('reset')
    .description('wipe and reseed the sandbox tenant (restarting it if it runs) and print the new credentials')
    .addOption(dataDirOption())
    .addOption(new Option('--seed-accounts <n>', 'accounts in the new tenant').argParser(parseSeedAccounts))
    .action(async (_opts: unknown, self: Command) => {
      await withIo(self, deps, async (io, dataDir, f) => (await import('./lifecycle.js')).runReset(dataDir, f.seedAccounts, io));
    });
}
