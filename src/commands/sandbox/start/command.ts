/** `svc sandbox start`: its options and help (the typed options: options.ts); the body (and the sandbox server) loads only when it runs. */
import type { CommandSpec } from '../../../cli/command.js';
import { DEFAULT_PORT, dataDirOption } from '../options.js';
import { toSandboxStartOptions, type SandboxStartOptions } from './options.js';

export const sandboxStartSpec: CommandSpec<SandboxStartOptions> = {
  name: 'start',
  summary: 'start the sandbox in the background and print its URL and credentials',
  options: [
    { flags: '--port <n>', help: `port on 127.0.0.1; 0 picks a free one (default: ${DEFAULT_PORT})` },
    dataDirOption,
    { flags: '--seed-accounts <n>', help: 'accounts in a newly seeded tenant (an existing tenant keeps its data; see reset)' },
    { flags: '--faults <rate>', help: 'fail this share of requests at random (503, 429, dropped connections, slow answers), e.g. 0.1' },
    { flags: '--oauth-access-ttl <duration>', help: 'lifetime of OAuth access tokens, e.g. 5m (default: 1h, as the service)' },
    { flags: '--https', help: 'serve HTTPS with a self-signed certificate kept in the data dir; prints the CA file to trust' },
    { flags: '--foreground', help: 'run in this process, log each request to stderr, stop on Ctrl-C or SIGTERM' },
  ],
  notes: `The sandbox runs in the background on 127.0.0.1; start prints its instance URL and the
demo user's and svc-cli application's credentials (with -o json: one object with
instanceUrl, user, password, appsecret, clientId, clientSecret, and caFile under --https).
svc-cli is also the sandbox's OAuth client (its secret is the appsecret), for a browser
sign-in with svc login --web.`,
  examples: [
    'svc sandbox start',
    'svc sandbox start --port 0 -o json',
    'svc sandbox start --https',
    'svc sandbox start --oauth-access-ttl 2m   # OAuth access tokens expire quickly, to try refreshing',
    'svc sandbox start --foreground       # in this terminal, one log line per request',
  ],
  toOptions: ({ flags }) => toSandboxStartOptions(flags),
  run: async (opts, ctx) => (await import('./run.js')).runSandboxStart(opts, ctx),
};
