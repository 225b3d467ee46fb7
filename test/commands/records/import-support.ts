/**
 * Shared by the import and bulk-write tests: files of rows in a temporary
 * directory, the results file read back, records counted by key straight in
 * the sandbox's database, a TCP proxy that cuts a connection after the
 * sandbox has answered a create (so the create happened, and svc never hears
 * of it), and a process control whose signals a test sends itself.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ProcessControl } from '../../../src/cli/deps.js';
import { table } from '../../../src/sandbox/schema.js';
import { testProcesses } from '../../helpers/cli.js';
import type { TestSandbox } from '../../helpers/sandbox.js';

/** A fresh temporary directory. */
export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'svc-import-'));
}

/** Writes a file of rows (text or bytes) and answers its path. */
export function rowsFile(name: string, content: string | Uint8Array, dir = tempDir()): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

/** One line of a results file. */
export interface Result {
  line?: number;
  action: string;
  id: number | null;
  status: number | null;
  etag: string | null;
  error: string | null;
}

/** The results file's lines, parsed. */
export function readResults(path: string): Result[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Result);
}

/** How many accounts have each customernum starting with `prefix`, straight from the database. */
export function countByKey(s: TestSandbox, prefix: string): Map<string, number> {
  const rows = s.sandbox.db
    .prepare(`SELECT customernum AS k, COUNT(*) AS n FROM ${table('demo', 'accounts')} WHERE customernum LIKE ? GROUP BY customernum`)
    .all(`${prefix}%`) as { k: string; n: number }[];
  return new Map(rows.map((r) => [r.k, r.n]));
}

/** The accounts whose lastname starts with `prefix`, straight from the database. */
export function accountsNamed(s: TestSandbox, prefix: string): Record<string, unknown>[] {
  return s.sandbox.db.prepare(`SELECT * FROM ${table('demo', 'accounts')} WHERE lastname LIKE ? ORDER BY ID`).all(`${prefix}%`) as Record<string, unknown>[];
}

/** Inserts an account straight into the database; answers its ID. */
export function insertAccount(s: TestSandbox, values: Record<string, unknown>): number {
  const v = { currency: 'EUR', type: 1, ...values };
  const keys = Object.keys(v);
  const sql = `INSERT INTO ${table('demo', 'accounts')} (${keys.map((k) => `"${k}"`).join(', ')}) VALUES (${keys.map(() => '?').join(', ')})`;
  return Number(s.sandbox.db.prepare(sql).run(...Object.values(v)).lastInsertRowid);
}

/**
 * A TCP proxy in front of the sandbox that, when armed, lets the sandbox
 * answer the n-th create (a 201) and then closes the client's connection
 * instead of passing the answer on: the record exists, svc never learns it.
 */
export interface CuttingProxy {
  /** The instance URL through the proxy. */
  instanceUrl(): string;
  /** Cuts the connection carrying each of these creates (1-based, counted from now). */
  cutCreates(which: ReadonlySet<number>): void;
  /** How many answers were cut. */
  readonly cut: number;
  close(): Promise<void>;
}

export async function startCuttingProxy(s: TestSandbox): Promise<CuttingProxy> {
  const origin = new URL(s.sandbox.origin);
  let which: ReadonlySet<number> = new Set();
  let creates = 0;
  let cut = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    sockets.add(client);
    const upstream = connect(Number(origin.port), origin.hostname);
    sockets.add(upstream);
    client.on('data', (c: Buffer) => upstream.write(c));
    upstream.on('data', (c: Buffer) => {
      if (c.toString('latin1', 0, 12) === 'HTTP/1.1 201' && which.has(++creates)) {
        cut++;
        client.destroy();
        upstream.destroy();
        return;
      }
      client.write(c);
    });
    const end = (): void => {
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as { port: number }).port;
  return {
    instanceUrl: () => `http://127.0.0.1:${port}/demo`,
    cutCreates(w) {
      which = w;
      creates = 0;
      cut = 0;
    },
    get cut() {
      return cut;
    },
    close: () =>
      new Promise<void>((r) => {
        for (const so of sockets) so.destroy();
        server.close(() => r());
      }),
  };
}

/** A process control whose SIGINT/SIGTERM handlers the test calls itself (`send`), as Ctrl-C would. */
export function signallable(): ProcessControl & { send(signal: 'SIGINT' | 'SIGTERM'): void } {
  const handlers: { signal: string; fn: () => void }[] = [];
  return {
    ...testProcesses(),
    onceSignal: (signal, fn) => void handlers.push({ signal, fn }),
    send(signal) {
      for (const h of handlers.splice(0)) if (h.signal === signal) h.fn();
    },
  };
}
