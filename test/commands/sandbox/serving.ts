/**
 * A sandbox serving a data dir from this test process, recorded in the data
 * dir's state file the way `svc sandbox start --foreground` records itself, so
 * the sandbox verbs find it running (their liveness probe sees this process).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { processControl } from '../../../src/cli/main.js';
import { ensureCertificate } from '../../../src/commands/sandbox/start/tls.js';
import { newToken, processStartOf, removeState, writeState, type SandboxState } from '../../../src/commands/sandbox/state.js';
import { startSandbox, type Sandbox } from '../../../src/sandbox/server.js';

/** A fresh data dir that does not exist yet (svc creates it). */
export function freshDataDir(): string {
  return join(mkdtempSync(join(tmpdir(), 'svc-commands-sandbox-')), 'data');
}

export interface Serving {
  readonly sandbox: Sandbox;
  readonly state: SandboxState;
  close(): Promise<void>;
}

/** Serves the data dir on 127.0.0.1 (HTTPS with the data dir's certificate when asked) and records the state. */
export async function serveDataDir(dataDir: string, opts: { https?: boolean; seedAccounts?: number } = {}): Promise<Serving> {
  const tls = opts.https ? await ensureCertificate(dataDir, Date.now()) : undefined;
  const token = newToken();
  const sandbox = await startSandbox({ dataDir, host: '127.0.0.1', port: 0, token, seedAccounts: opts.seedAccounts ?? 3, ...(tls ? { tls: { key: tls.key, cert: tls.cert } } : {}) });
  const { pid } = processControl();
  const processStart = processStartOf(pid);
  const state: SandboxState = {
    pid,
    origin: sandbox.origin,
    port: sandbox.port,
    instanceUrl: sandbox.instanceUrl(),
    https: opts.https === true,
    ...(tls ? { caFile: tls.caFile } : {}),
    startedAt: new Date().toISOString(),
    token,
    ...(processStart ? { processStart } : {}),
  };
  writeState(dataDir, state);
  return {
    sandbox,
    state,
    close: async () => {
      removeState(dataDir, pid);
      await sandbox.close();
    },
  };
}
