/**
 * The sandbox server: the whole service (data and authentication interfaces)
 * for several isolated instances, over HTTP or HTTPS, on one embedded database.
 *
 *   /<instance>/api/v1/…     data interface
 *   /<instance>/auth/v1/…    authentication interface
 *   /<instance>/oauth2/v1/…  OAuth 2.0 interface: sign-in pages, codes, tokens (oauth/)
 *   /_sandbox/health         liveness and instances, for `svc sandbox status`
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';
import { replaceFile } from '../util/atomic-file.js';
import { handleAuth } from './auth/routes.js';
import type { RequestInfo, SandboxContext } from './context.js';
import { handleData } from './data/routes.js';
import { openDatabase, type Db } from './db.js';
import { badRequest, HttpError, ReplyError } from './errors.js';
import { SandboxHooks, waitDelay } from './hooks.js';
import { readBody } from './http/body.js';
import { json, send, text, type Reply } from './http/respond.js';
import { excerpt } from './limits.js';
import { handleOAuth } from './oauth/routes.js';
import { createInstance, dropInstance, listInstances } from './schema.js';
import { seedInstance, type SeedResult } from './seed/index.js';

export interface SandboxOptions {
  /** Directory for the database and credentials; ':memory:' keeps everything in memory. */
  readonly dataDir: string;
  readonly host?: string;
  /** 0 picks a free port. */
  readonly port?: number;
  /** Serve HTTPS with this key and certificate (PEM). */
  readonly tls?: { readonly key: string; readonly cert: string };
  /** Instances to create (and seed) when missing; default ['demo']. */
  readonly instances?: readonly string[];
  /** Accounts in a newly seeded instance. */
  readonly seedAccounts?: number;
  /** Clock in milliseconds (tests move it). */
  readonly now?: () => number;
  /** One line per request (method, path, status, ms), for --foreground. */
  readonly log?: (line: string) => void;
  /** Share of data and auth requests to fail at random (see hooks.randomFault); 0 by default. */
  readonly faultRate?: number;
  /** Pattern matching one query may spend, in ms (LIMITS.patternBudgetMs by default; tests set less). */
  readonly patternBudgetMs?: number;
  /** Lifetime of OAuth access tokens in seconds (default 3600, as the service's). */
  readonly oauthAccessTtlSeconds?: number;
  /** A token `/_sandbox/health` answers with, so a client can tell this sandbox from any other process. */
  readonly token?: string;
}

export interface Sandbox {
  /** `http://127.0.0.1:PORT` (or https). */
  readonly origin: string;
  readonly port: number;
  readonly db: Db;
  readonly hooks: SandboxHooks;
  /** Clear credentials of each instance, as seeded. */
  readonly credentials: Readonly<Record<string, SeedResult>>;
  /** The instance URL a client is given: `<origin>/<instance>`. */
  instanceUrl(instance?: string): string;
  /** Wipes an instance and seeds it again; returns the new credentials. */
  reset(instance?: string): SeedResult;
  close(): Promise<void>;
}

const CREDENTIALS_FILE = 'credentials.json';
/** Characters of an error text at most. */
const MAX_ERROR_TEXT = 1000;

/** The code of the error a damaged file of the data dir raises (its `path` names the file). */
export const DAMAGED_FILE = 'ESVCSANDBOXDAMAGED';

/** An error saying that a file of the data dir is damaged: `code` DAMAGED_FILE, `path` the file. */
function damagedFile(file: string, why: string): Error {
  return Object.assign(new Error(`${file} is damaged (${why})`), { code: DAMAGED_FILE, path: file });
}

function loadCredentials(dataDir: string): Record<string, SeedResult> {
  const file = join(dataDir, CREDENTIALS_FILE);
  if (dataDir === ':memory:' || !existsSync(file)) return {};
  let creds: unknown;
  try {
    creds = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    if (err instanceof SyntaxError) throw damagedFile(file, 'not JSON');
    throw err;
  }
  if (typeof creds !== 'object' || creds === null || Array.isArray(creds)) throw damagedFile(file, 'not a JSON object');
  return creds as Record<string, SeedResult>;
}

/** Replaces the credentials file whole (mode 0600): a reader, or a start after a crash, sees the old file or the new one. */
function saveCredentials(dataDir: string, creds: Record<string, SeedResult>): void {
  if (dataDir === ':memory:') return;
  replaceFile(join(dataDir, CREDENTIALS_FILE), `${JSON.stringify(creds, null, 2)}\n`, 0o600);
}

/** Opens the database; a file that is not one, or is damaged, is a DAMAGED_FILE error naming it. */
function openSandboxDatabase(file: string): Db {
  let db: Db | undefined;
  try {
    db = openDatabase(file);
    listInstances(db);
    return db;
  } catch (err) {
    db?.close();
    throw damagedDatabase(err, file);
  }
}

/** SQLite's "not a database" and "malformed" as a DAMAGED_FILE error naming the file; other errors as they are. */
function damagedDatabase(err: unknown, file: string): unknown {
  const code = (err as { code?: unknown }).code;
  if (file !== ':memory:' && typeof code === 'string' && /^SQLITE_(NOTADB|CORRUPT)/.test(code)) return damagedFile(file, (err as Error).message);
  return err;
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw badRequest(`malformed percent-escape in the path segment '${excerpt(segment)}'; escape '%' as %25 and percent-encode UTF-8 bytes only`);
  }
}

/** The request target's decoded path segments and query (parsed, and raw); 400 for a target that is not a valid URL path. */
function splitPath(url: string): { segments: string[]; query: URLSearchParams; rawQuery: string } {
  let u: URL;
  try {
    u = new URL(url, 'http://sandbox.invalid');
  } catch {
    throw badRequest(`malformed request target '${excerpt(url)}'; send a path such as /<instance>/api/v1/<resource>`);
  }
  const segments = u.pathname.split('/').filter(Boolean).map(decodeSegment);
  return { segments, query: u.searchParams, rawQuery: u.search.slice(1) };
}

/** Starts a sandbox and resolves once it listens. */
export async function startSandbox(opts: SandboxOptions): Promise<Sandbox> {
  if (opts.dataDir !== ':memory:' && !existsSync(opts.dataDir)) mkdirSync(opts.dataDir, { recursive: true, mode: 0o700 });
  const dbFile = opts.dataDir === ':memory:' ? ':memory:' : join(opts.dataDir, 'sandbox.sqlite');
  const credentials = loadCredentials(opts.dataDir);
  const db = openSandboxDatabase(dbFile);
  const now = opts.now ?? (() => Date.now());
  const hooks = new SandboxHooks();
  if (opts.faultRate) hooks.setFaultRate(opts.faultRate);
  // One transaction registers the instance, seeds it and (before it commits) saves its credentials: a
  // seeding cut short (SIGKILL, a crash) leaves no instance behind, and the next start seeds it again.
  const seed = db.transaction((instance: string): SeedResult => {
    createInstance(db, instance);
    const result = seedInstance(db, instance, { accounts: opts.seedAccounts, now: Math.floor(now() / 1000) });
    credentials[instance] = result;
    saveCredentials(opts.dataDir, credentials);
    return result;
  });
  let instances: Set<string>;
  try {
    const known = new Set(listInstances(db));
    for (const instance of opts.instances ?? ['demo']) {
      if (!known.has(instance)) seed(instance);
      else createInstance(db, instance); // idempotent: adds tables a newer catalogue may have
    }
    instances = new Set(listInstances(db));
  } catch (err) {
    db.close();
    throw damagedDatabase(err, dbFile);
  }

  async function route(req: IncomingMessage): Promise<Reply> {
    const { segments, query, rawQuery } = splitPath(req.url ?? '/');
    if (segments[0] === '_sandbox' && segments[1] === 'health') return json({ ok: true, instances: [...instances], ...(opts.token ? { token: opts.token } : {}) });
    const [instance, iface, version, ...rest] = segments;
    if (!instance || !instances.has(instance)) throw new HttpError(404, `Not Found: no instance '${excerpt(instance ?? '')}'`);
    if (version !== 'v1') throw new HttpError(404, 'Not Found');
    const ctx: SandboxContext = {
      db,
      instance,
      now,
      patternBudgetMs: opts.patternBudgetMs,
      oauthAccessTtlSeconds: opts.oauthAccessTtlSeconds,
      https: opts.tls !== undefined,
    };
    const body = req.method === 'GET' || req.method === 'HEAD' ? undefined : await readBody(req);
    const info: RequestInfo = { method: req.method ?? 'GET', segments: rest, query, rawQuery, headers: req.headers, body };
    if (hooks.record) hooks.requests.push({ method: info.method, url: req.url ?? '', headers: req.headers, body });
    if (iface === 'api') return handleData(ctx, info);
    if (iface === 'auth') return handleAuth(ctx, info);
    if (iface === 'oauth2') return handleOAuth(ctx, info);
    throw new HttpError(404, 'Not Found');
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = Date.now();
    hooks.onArrival?.(req.method ?? 'GET', req.url ?? '');
    const fault = hooks.takeFault(req.method ?? 'GET', req.url ?? '');
    if (fault && 'drop' in fault) {
      req.socket.destroy();
      return;
    }
    if (fault && 'delayMs' in fault && (await waitDelay(req.socket, fault.delayMs))) {
      opts.log?.(`${req.method} ${req.url} closed by the client during an injected delay, after ${Date.now() - started}ms`);
      return;
    }
    let reply: Reply;
    try {
      reply = fault && 'status' in fault ? text(fault.body ?? 'Injected fault', fault.status, undefined, { ...fault.headers }) : await route(req);
    } catch (err) {
      // Every error text is one line of bounded length, whatever a message quotes of the request.
      if (err instanceof ReplyError) reply = err.reply;
      else if (err instanceof HttpError) reply = text(excerpt(err.message, MAX_ERROR_TEXT), err.status, undefined, { ...err.headers });
      else reply = text(`Internal Server Error: ${excerpt(String((err as Error).message), MAX_ERROR_TEXT)}`, 500);
    }
    const last = hooks.requests[hooks.requests.length - 1];
    if (hooks.record && last && last.status === undefined) last.status = reply.status;
    send(res, reply, req.method === 'HEAD');
    opts.log?.(`${req.method} ${req.url} ${reply.status} ${Date.now() - started}ms`);
  }

  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) send(res, text(`Internal Server Error: ${(err as Error).message}`, 500), false);
    });
  };
  const server: Server = opts.tls ? createHttpsServer({ key: opts.tls.key, cert: opts.tls.cert }, listener) : createHttpServer(listener);
  server.keepAliveTimeout = 30_000;
  const sockets = new Set<Socket>();
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const origin = `${opts.tls ? 'https' : 'http'}://${host}:${port}`;
  return {
    origin,
    port,
    db,
    hooks,
    credentials,
    instanceUrl: (instance = 'demo') => `${origin}/${instance}`,
    reset(instance = 'demo') {
      dropInstance(db, instance);
      const result = seed(instance);
      instances.add(instance);
      return result;
    },
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      });
      db.close();
    },
  };
}
