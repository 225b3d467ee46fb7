/**
 * `svc api`: sends one request with the profile's credentials through the one
 * HTTP client and writes the answer's body to stdout as it came; an error
 * status exits with its code, its body still on stdout when it is JSON. With
 * --paginate, every page of a query by ID as one JSON array (or NDJSON), the
 * way `svc <family> query --all` pages; with --dry-run, the request, unsent.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import type { Context } from '../../cli/context.js';
import { clientOptions } from '../../cli/connection.js';
import type { Deps } from '../../cli/deps.js';
import { UsageError } from '../../errors.js';
import { shown } from '../../util/shown.js';
import { outgoing, urlOf, type HttpClient, type RequestSpec } from '../../http/client.js';
import { statusError } from '../../http/errors.js';
import { redactUrl } from '../../http/redact.js';
import { parseInstanceUrl, type InstanceRoots } from '../../http/urls.js';
import { drained } from '../../output/drain.js';
import { writeJsonRows, writeNdjsonRows } from '../../output/json.js';
import { allPages } from '../../records/query.js';
import { filterMemberOf } from '../records/filter-flags.js';
import { fileOf, readsStdin, type FieldSources } from './fields.js';
import type { ApiOptions } from './options.js';
import { renderDryRun, renderHead } from './render.js';
import { locate, toApiRequest, toPagePlan, type PagePlan } from './request.js';

/** Every error status: the client hands the answer back, so its body can be shown. */
const ERROR_STATUSES: readonly number[] = Array.from({ length: 200 }, (_, i) => 400 + i);

/**
 * The one way a response body reaches stdout: bytes as they arrive, at the
 * pace of whoever reads the pipe. (A later --jq filters here.)
 */
export async function writeBody(ctx: Context, chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>): Promise<void> {
  const out = ctx.deps.stdout;
  const jq = await ctx.jq();
  if (jq) {
    // --jq: the whole body is jq's input (JSON text, one or more values).
    const parts: Buffer[] = [];
    for await (const chunk of chunks) parts.push(Buffer.from(chunk));
    const { writeJq } = await import('../../output/jq.js');
    return writeJq(out, Buffer.concat(parts).toString('utf8'), jq);
  }
  for await (const chunk of chunks) if (chunk.length > 0 && !out.write(chunk)) await drained(out);
}

/** --paginate's records: one JSON array or one a line, or through --jq (the whole array, or each record with -o ndjson). */
async function writeRows(ctx: Context, rows: AsyncIterable<Record<string, unknown>>, format: 'json' | 'ndjson'): Promise<void> {
  const jq = await ctx.jq();
  if (!jq) return (format === 'ndjson' ? writeNdjsonRows : writeJsonRows)(ctx.deps.stdout, rows);
  const { writeJqView } = await import('../../output/jq.js');
  return writeJqView(ctx.deps.stdout, { kind: 'records', columns: [], rows }, format, jq);
}

/** -o: the body is printed as the service sent it; --paginate makes one JSON array, or NDJSON with -o ndjson. */
function formatOf(output: string | undefined, paginate: boolean): 'json' | 'ndjson' {
  if (output === undefined || output === 'json') return 'json';
  if (output === 'ndjson' && paginate) return 'ndjson';
  if (output === 'ndjson') throw new UsageError('-o ndjson goes with --paginate (a record a line); without it svc api prints the body as the service sent it');
  throw new UsageError(`svc api prints the service's answer as it is: -o ${shown(output, 40)} does not apply (with --paginate: -o json or -o ndjson)`);
}

function decodeUtf8(bytes: Uint8Array, what: string): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new UsageError(`${what} is not UTF-8 text; svc api sends text bodies (JSON or form-encoded)`);
  }
}

/** The largest body text svc api reads from a file or standard input (a device such as /dev/zero never ends). */
export const MAX_INPUT_BYTES = 64 * 1024 * 1024;

function tooLarge(what: string): UsageError {
  return new UsageError(`${what} holds more than ${MAX_INPUT_BYTES / 1024 / 1024} MiB; svc api sends bodies up to that size (split the request, or send it with another client)`);
}

/** A file's bytes, read up to the limit (a FIFO is read to its end, a device is not read forever). */
function readCapped(path: string): Buffer {
  const fd = openSync(path, 'r');
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(1 << 20);
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      total += n;
      if (total > MAX_INPUT_BYTES) throw tooLarge(`'${shown(path)}'`);
      chunks.push(chunk.subarray(0, n));
    }
    return Buffer.concat(chunks, total);
  } finally {
    closeSync(fd);
  }
}

/** Reads the files and standard input the options name, once each, before anything is sent. */
async function readSources(opts: ApiOptions, deps: Deps): Promise<FieldSources> {
  const files = new Map<string, string>();
  const paths = [...opts.fields.map(fileOf), opts.input === '-' ? undefined : opts.input].filter((p): p is string => p !== undefined);
  for (const path of paths) {
    if (files.has(path)) continue;
    let bytes: Buffer;
    try {
      bytes = readCapped(path);
    } catch (err) {
      if (err instanceof UsageError) throw err;
      const code = (err as NodeJS.ErrnoException).code ?? 'unreadable';
      throw new UsageError(`cannot read '${shown(path)}' (${code}); check the file named by --input or -F key=@FILE`);
    }
    files.set(path, decodeUtf8(bytes, `'${shown(path)}'`));
  }
  let stdin: string | undefined;
  if (opts.input === '-' || opts.fields.some(readsStdin)) {
    const chunks: Buffer[] = [];
    let total = 0;
    for await (const c of deps.stdin) {
      const b = typeof c === 'string' ? Buffer.from(c) : c;
      total += b.length;
      if (total > MAX_INPUT_BYTES) throw tooLarge('standard input');
      chunks.push(b);
    }
    stdin = decodeUtf8(Buffer.concat(chunks), 'standard input');
  }
  return {
    file: (path) => files.get(path) ?? '',
    stdin: () => stdin ?? '',
  };
}

/** The first request --paginate would send: allPages asked for one page through a client that only records it. */
async function firstPage(plan: PagePlan, roots: InstanceRoots): Promise<RequestSpec> {
  let seen: RequestSpec | undefined;
  const stop = new Error('recorded');
  const recorder: HttpClient = {
    roots,
    request: (spec) => {
      seen = spec;
      return Promise.reject(stop);
    },
    close: async () => undefined,
  };
  await allPages(recorder, plan.family, plan.query, plan.pageSize)
    .next()
    .catch((err: unknown) => {
      if (err !== stop) throw err;
    });
  if (!seen) throw new Error('paging sent no request');
  return seen;
}

export async function runApi(opts: ApiOptions, ctx: Context): Promise<void> {
  const format = formatOf(ctx.globals.output, opts.paginate);
  const target = await ctx.target();
  const roots = parseInstanceUrl(target.instanceUrl);
  const at = locate(opts.target, roots);
  const req = toApiRequest(opts, at, await readSources(opts, ctx.deps));
  const plan = opts.paginate ? toPagePlan(req, opts, await filterMemberOf(ctx)) : undefined;

  if (opts.dryRun) {
    // No token is looked up: the bearer is shown as redacted whatever it would be.
    const spec = plan ? await firstPage(plan, roots) : req.spec;
    const { userAgent } = clientOptions(ctx.globals, ctx.deps, target, undefined);
    const { headers, body } = outgoing(spec, userAgent, spec.auth === false ? undefined : 'token');
    return ctx.emit({ kind: 'text', text: renderDryRun(spec.method, urlOf(roots, spec).href, headers, body) });
  }

  const { client } = await ctx.connect({ token: true });
  if (plan) {
    const rows = allPages(client, plan.family, plan.query, plan.pageSize);
    return writeRows(ctx, rows, format);
  }
  return sendOne(ctx, client, req.spec, opts.include);
}

/** One request: the head with -i, the body as it came; an error status throws after a JSON body is written. */
async function sendOne(ctx: Context, client: HttpClient, spec: RequestSpec, include: boolean): Promise<void> {
  const res = await client.request({ ...spec, accept: ERROR_STATUSES });
  if (include) await ctx.emit({ kind: 'text', text: renderHead(res.status, res.headers) });
  if (res.status < 400) return writeBody(ctx, res.body);
  const chunks: Buffer[] = [];
  for await (const c of res.body) chunks.push(c);
  const bytes = Buffer.concat(chunks);
  const text = bytes.toString('utf8');
  // As gh api does: a JSON error body is still the answer a script reads.
  if (isJsonBody(res.headers['content-type'], text)) await writeBody(ctx, [bytes]);
  throw statusError(res.status, text, spec.method, redactUrl(urlOf(client.roots, spec).href));
}

/** JSON by its content type, or (an unlabelled or mislabelled answer) an object or array that parses. */
function isJsonBody(type: string | string[] | undefined, text: string): boolean {
  const t = (Array.isArray(type) ? type[0] : type) ?? '';
  if (/^application\/(?:[\w.+-]*\+)?json\b/i.test(t.trim())) return text.length > 0;
  if (!/^\s*[[{]/.test(text)) return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
