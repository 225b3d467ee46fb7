/**
 * `svc api`: sends one request with the profile's credentials through the one
 * HTTP client and writes the answer's body to stdout as it came; an error
 * status exits with its code, its body still on stdout when it is JSON. With
 * --paginate, every page of a query by ID as one JSON array (or NDJSON), the
 * way `svc <family> query --all` pages; with --dry-run, the request, unsent.
 */
import type { Context } from '../../cli/context.js';
import { clientOptions } from '../../cli/connection.js';
import type { Deps } from '../../cli/deps.js';
import { SvcError, UsageError } from '../../errors.js';
import { ReadBoundError, readBounded } from '../../util/read-bounded.js';
import { shown } from '../../util/shown.js';
import { outgoing, urlOf, type HttpClient, type RequestSpec } from '../../http/client.js';
import { statusError } from '../../http/errors.js';
import { redactUrl } from '../../http/redact.js';
import { parseInstanceUrl, type InstanceRoots } from '../../http/urls.js';
import { drained } from '../../output/drain.js';
import { writeJsonRows, writeNdjsonRows } from '../../output/json.js';
import { allPages } from '../../records/query.js';
import { filterMemberOf } from '../records/filter-flags.js';
import { refuseJqDryRun } from '../records/write-dry-run.js';
import { fileOf, readsStdin, type FieldSources } from './fields.js';
import type { ApiOptions } from './options.js';
import { renderDryRun, renderHead } from './render.js';
import { locate, toApiRequest, toPagePlan, type PagePlan } from './request.js';

/** Every error status: the client hands the answer back, so its body can be shown. */
const ERROR_STATUSES: readonly number[] = Array.from({ length: 200 }, (_, i) => 400 + i);

/** Text (the head -i prints) straight to stdout: never through --jq, which filters the body alone. */
async function writeText(out: Context['deps']['stdout'], text: string): Promise<void> {
  if (!out.write(text)) await drained(out);
}

/**
 * The one way a response body reaches stdout: bytes as they arrive, at the
 * pace of whoever reads the pipe; with --jq, the whole body as jq's input, up
 * to the most svc hands jq (512 MB: past it, exit 1 saying so, the rest unread).
 */
export async function writeBody(ctx: Context, chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>): Promise<void> {
  const out = ctx.deps.stdout;
  const jq = await ctx.jq();
  if (jq) {
    const { JQ_MAX_INPUT_CHARS, writeJq } = await import('../../output/jq.js');
    const parts: Buffer[] = [];
    let total = 0;
    for await (const chunk of chunks) {
      total += chunk.length;
      // Leaving the loop closes the connection: the rest is not read.
      if (total > JQ_MAX_INPUT_CHARS) {
        throw new SvcError('--jq: the answer comes to more than 512 MB of JSON, the most svc hands jq at once; leave out --jq and pipe the body to jq, or ask for less');
      }
      parts.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    }
    const bytes = Buffer.concat(parts, total);
    parts.length = 0;
    return writeJq(out, bytes.toString('utf8'), jq);
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

/** A wait for a message: "800 ms", "30 s". */
function waitText(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 1000)} s`;
}

/**
 * A file's bytes, read without blocking (Ctrl-C and SIGTERM act at once), up to the limit; a FIFO
 * (`--input <(producer)`) is read as it is written, and given up once it is quiet for --timeout.
 */
async function readInputFile(path: string, waitMs: number): Promise<Buffer> {
  const named = `'${shown(path)}'`;
  try {
    return await readBounded(path, { maxBytes: MAX_INPUT_BYTES, waitMs });
  } catch (err) {
    if (err instanceof ReadBoundError && err.reason === 'too-large') throw tooLarge(named);
    if (err instanceof ReadBoundError) {
      throw new UsageError(
        err.received === 0
          ? `${named} gave nothing within ${waitText(waitMs)} (a pipe nobody writes to?); check what writes it, or raise --timeout`
          : `${named} stopped giving data for ${waitText(waitMs)} before it ended (${err.received.toLocaleString('en-US')} bytes came); check what writes it, or raise --timeout`,
      );
    }
    const code = (err as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new UsageError(`cannot read ${named} (${shown(code, 40)}); check the file named by --input or -F key=@FILE`);
  }
}

/** Reads the files and standard input the options name, once each, before anything is sent; a FIFO waits at most `waitMs` for data. */
async function readSources(opts: ApiOptions, deps: Deps, waitMs: number): Promise<FieldSources> {
  const files = new Map<string, string>();
  const paths = [...opts.fields.map(fileOf), opts.input === '-' ? undefined : opts.input].filter((p): p is string => p !== undefined);
  for (const path of paths) {
    if (files.has(path)) continue;
    files.set(path, decodeUtf8(await readInputFile(path, waitMs), `'${shown(path)}'`));
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
  // Before anything is read (standard input, a FIFO) or sent: a dry run prints text, which --jq cannot filter.
  if (opts.dryRun) refuseJqDryRun(ctx);
  const format = formatOf(ctx.globals.output, opts.paginate);
  const target = await ctx.target();
  const roots = parseInstanceUrl(target.instanceUrl);
  const at = locate(opts.target, roots);
  const { userAgent, timeoutMs } = clientOptions(ctx.globals, ctx.deps, target, undefined);
  const req = toApiRequest(opts, at, await readSources(opts, ctx.deps, timeoutMs));
  const plan = opts.paginate ? toPagePlan(req, opts, await filterMemberOf(ctx)) : undefined;

  if (opts.dryRun) {
    // No token is looked up: the bearer is shown as redacted whatever it would be.
    const spec = plan ? await firstPage(plan, roots) : req.spec;
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

/** How much of an error answer's body is read (the message shows 300 characters of it; stdout gets it when it is whole JSON). */
const ERROR_BODY_LIMIT = 64 * 1024;

/** An error answer's first `max` bytes, and whether that is all of it; a failure part way keeps what came (as the client's head() does). */
async function errorBody(body: AsyncIterable<Uint8Array>, max: number): Promise<{ bytes: Buffer; whole: boolean }> {
  const parts: Buffer[] = [];
  let total = 0;
  let whole = true;
  try {
    for await (const chunk of body) {
      parts.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
      total += chunk.length;
      // Leaving the loop closes the connection: an endless or stalled rest is never waited for.
      if (total > max) {
        whole = false;
        break;
      }
    }
  } catch {
    whole = false;
  }
  return { bytes: Buffer.concat(parts, total).subarray(0, max), whole };
}

/**
 * One request: with -i the head (as text, --jq or not), then the body as it came. An error status is
 * always the outcome (its exit code and message): its body is read up to 64 KB, and written (through
 * --jq, whose failure on it is not reported) only when that is all of it and it is JSON.
 */
async function sendOne(ctx: Context, client: HttpClient, spec: RequestSpec, include: boolean): Promise<void> {
  const res = await client.request({ ...spec, accept: ERROR_STATUSES });
  if (include) await writeText(ctx.deps.stdout, renderHead(res.status, res.headers));
  if (res.status < 400) return writeBody(ctx, res.body);
  const { bytes, whole } = await errorBody(res.body, ERROR_BODY_LIMIT);
  const text = bytes.toString('utf8');
  const failed = statusError(res.status, text, spec.method, redactUrl(urlOf(client.roots, spec).href));
  // As gh api does: a JSON error body is still the answer a script reads. Whatever becomes of it (jq failing
  // on it, a closed stdout), the status is what the run ends with.
  if (whole && isJsonBody(res.headers['content-type'], text)) await writeBody(ctx, [bytes]).catch(() => undefined);
  throw failed;
}

/** JSON that parses: any value when the content type says JSON, else (an unlabelled or mislabelled answer) an object or array. */
function isJsonBody(type: string | string[] | undefined, text: string): boolean {
  const t = (Array.isArray(type) ? type[0] : type) ?? '';
  if (!/^application\/(?:[\w.+-]*\+)?json\b/i.test(t.trim()) && !/^\s*[[{]/.test(text)) return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
