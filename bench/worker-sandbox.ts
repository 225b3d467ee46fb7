// The benchmarks' sandbox: seeded in a worker thread (so the load generator
// does not share its event loop), with a token for the demo user through the
// svc-cli application, and closed in order when the benchmark ends.
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { issueToken } from '../src/sandbox/auth/tokens.js';
import { startSandbox, type Sandbox } from '../src/sandbox/server.js';

export interface SeededSandbox {
  readonly sandbox: Sandbox;
  readonly seedMs: number;
  /** The context the sandbox's own handlers take, for in-process calls. */
  readonly ctx: { db: Sandbox['db']; instance: string; now: () => number };
  readonly token: string;
}

/** Worker side: starts and seeds a sandbox in `dataDir` and issues a token named `identifier`. */
export async function seedWithToken(dataDir: string, accounts: number, identifier: string): Promise<SeededSandbox> {
  const t0 = performance.now();
  const sandbox = await startSandbox({ dataDir, port: 0, seedAccounts: accounts });
  const seedMs = performance.now() - t0;
  const creds = sandbox.credentials.demo;
  const user = creds?.users.find((u) => u.name === 'demo');
  const app = creds?.applications.find((a) => a.identifier === 'svc-cli');
  if (!user || !app) throw new Error('the demo instance has no demo user or svc-cli application');
  const ctx = { db: sandbox.db, instance: 'demo', now: () => Date.now() };
  const { token } = issueToken(ctx, { user: user.id, application: app.id, identifier });
  return { sandbox, seedMs, ctx, token };
}

/** Runs the TypeScript module `moduleUrl` in a worker thread (registering tsx's loader first). */
export function startBenchWorker(moduleUrl: string, workerData: unknown): Worker {
  const boot = `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((m) => { m.register(); return import(${JSON.stringify(moduleUrl)}); })`;
  return new Worker(boot, { eval: true, workerData });
}

/** Asks the worker to close its sandbox ('close', answered 'closed'), waits up to 5 s, then ends the thread. */
export async function closeBenchWorker(worker: Worker): Promise<void> {
  const closed = new Promise<void>((resolve) => {
    worker.on('message', (m) => m === 'closed' && resolve());
    worker.once('exit', () => resolve());
  });
  worker.postMessage('close');
  await Promise.race([closed, new Promise((r) => setTimeout(r, 5000).unref())]);
  await worker.terminate();
}
