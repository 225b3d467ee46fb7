/**
 * `--dry-run` of create, update, delete and import: the requests that would
 * be sent (method, URL, the headers svc adds for them with the token
 * redacted, the body), on stdout; nothing that writes is sent. The plan of a
 * bulk write (how many creates, updates, deletes, and the first of each) is
 * built by the verbs from these pieces.
 */
import type { ResourceFamily } from '../../catalogue/index.js';
import type { Context } from '../../cli/context.js';
import { UsageError } from '../../errors.js';
import { redactHeaders, redactUrl } from '../../http/redact.js';
import { parseInstanceUrl } from '../../http/urls.js';
import { writePath, type WriteRequest } from './write-send.js';

/** How many rows of each kind a plan shows. */
export const PLAN_SAMPLE = 5;

/** The full URL of a write's path on the instance this run talks to. */
export async function urlMaker(ctx: Context): Promise<(path: string) => string> {
  const roots = parseInstanceUrl((await ctx.target()).instanceUrl);
  return (path) => redactUrl(`${roots.api}${path}`);
}

/** The headers svc sends with a write besides its own (user-agent, accept): the token (redacted), the body's type, If-Match. */
export function writeHeaders(req: Pick<WriteRequest, 'json' | 'ifMatch'>): string[] {
  const headers: Record<string, string> = { authorization: 'Bearer token' };
  if (req.json !== undefined) headers['content-type'] = 'application/json';
  if (req.ifMatch !== undefined) headers['if-match'] = req.ifMatch;
  return redactHeaders(headers);
}

/** One request as text: the request line, its headers, a blank line and the body (pretty JSON). */
export function requestText(url: string, req: Pick<WriteRequest, 'method' | 'json' | 'ifMatch'>): string {
  const head = [`${req.method} ${url}`, ...writeHeaders(req)].join('\n');
  return req.json === undefined ? `${head}\n` : `${head}\n\n${JSON.stringify(req.json, null, 2)}\n`;
}

/** One request of a plan, on one line: `PUT URL {"lastname":"Acme"}`. */
export function requestLine(url: string, req: Pick<WriteRequest, 'method' | 'json' | 'ifMatch'>): string {
  const body = req.json === undefined ? '' : ` ${JSON.stringify(req.json)}`;
  return `${req.method} ${url}${body}`;
}

/**
 * --jq on a write that prints no JSON (a dry run's request, a bulk write's summary on stderr, a delete): refused
 * before anything is read or sent, so a typo in it never follows a write that was made.
 */
export function refuseJq(ctx: Context, what: string): void {
  if (ctx.globals.jq !== undefined) throw new UsageError(`--jq filters JSON output, and ${what} prints none; leave out --jq`);
}

/** --jq on a dry run, which prints the request as text. */
export function refuseJqDryRun(ctx: Context): void {
  refuseJq(ctx, 'a dry run (the request, as text)');
}

/** --jq on an update or delete by --filter, which prints its summary on stderr. */
export function refuseJqByFilter(ctx: Context, family: ResourceFamily, verb: string): void {
  refuseJq(ctx, `svc ${family.name} ${verb} --filter (its summary goes to stderr; --results FILE keeps a JSON line a record)`);
}

/** Prints a single write's dry run: the request on stdout, the note on stderr. */
export async function printDryRun(ctx: Context, family: ResourceFamily, id: string | undefined, req: WriteRequest): Promise<void> {
  refuseJqDryRun(ctx);
  const url = (await urlMaker(ctx))(writePath(family, id));
  ctx.deps.stderr.write('dry run: nothing was sent\n');
  await ctx.emit({ kind: 'text', text: requestText(url, req) });
}
