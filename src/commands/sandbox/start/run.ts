/** `svc sandbox start`: in the background (a detached child), or with --foreground in this process. */
import type { Context } from '../../../cli/context.js';
import { resolveDataDir } from '../data-dir.js';
import { createSandboxIo } from '../io.js';
import type { StartOptions } from '../options.js';
import type { SandboxStartOptions } from './options.js';

export async function runSandboxStart(opts: SandboxStartOptions, ctx: Context): Promise<void> {
  const io = createSandboxIo(ctx);
  const start: StartOptions = {
    dataDir: resolveDataDir(opts.dataDir, ctx.deps.env),
    port: opts.port,
    https: opts.https,
    seedAccounts: opts.seedAccounts,
    faults: opts.faults,
    oauthAccessTtlSeconds: opts.oauthAccessTtl,
  };
  if (opts.foreground) return (await import('./foreground.js')).runForeground(start, io);
  return (await import('./background.js')).startInBackground(start, io);
}
