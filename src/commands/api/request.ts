/**
 * `svc api`'s request from its options, pure: where it goes (a path under one
 * of the instance's three interfaces, never anywhere else), its method,
 * headers and body (fields as JSON or as a query string, or --input as given),
 * whether it may be sent twice, and for --paginate the query it pages by ID.
 */
import { findFamily, type ResourceFamily } from '../../catalogue/index.js';
import { UsageError } from '../../errors.js';
import { shown } from '../../util/shown.js';
import type { RequestSpec, Root } from '../../http/client.js';
import { redactQueryValues, redactUrl } from '../../http/redact.js';
import type { InstanceRoots } from '../../http/urls.js';
import type { KeysetQuery } from '../../records/query.js';
import { buildParams, queryPairs, type FieldArg, type FieldSources } from './fields.js';
import { nestsDeeperThan } from '../../util/json-depth.js';

export type Method = RequestSpec['method'];
export const METHODS: readonly Method[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** Where a request goes, as given: a path under an interface, or a full URL (checked against the instance when it is known). */
export type ApiTarget = { readonly kind: 'path'; readonly root: Root; readonly path: string } | { readonly kind: 'url'; readonly url: string };

/** A request header, its name in lower case. */
export type Header = readonly [name: string, value: string];

/** What the request is made of (ApiOptions has these members, and the flags of its own). */
export interface RequestParts {
  /** Given with -X or before the path; otherwise GET, or POST with fields, --input or --paginate. */
  readonly method?: Method;
  readonly target: ApiTarget;
  readonly fields: readonly FieldArg[];
  readonly headers: readonly Header[];
  /** --input: a file, or - for standard input. */
  readonly input?: string;
  readonly paginate: boolean;
}

const ROOT_WORDS: Readonly<Record<string, Root>> = { auth: 'auth', oauth2: 'oauth2' };

/**
 * The PATH argument: `accounts/42?extdata=1` and `/config` are under the data
 * interface, `auth/…` and `oauth2/…` under the other two; a full URL is kept
 * for `locate` to check. Dot segments, backslashes and fragments are refused:
 * a URL parser would change the path they are in.
 */
export function parseTarget(text: string): ApiTarget {
  if (text === '') throw new UsageError("give a path, e.g. 'svc api accounts/42' or 'svc api config'");
  // The URL parser drops tabs and line breaks, which would join '.\t.' into '..'.
  if (/[\x00-\x1f\x7f]/.test(text)) throw new UsageError(`the path ${shown(JSON.stringify(clipped(text)))} holds a control character; write it percent-encoded (e.g. %0A)`);
  if (/^[a-z][a-z\d+.-]*:\/\//i.test(text)) return { kind: 'url', url: text };
  const path = text.startsWith('/') ? text.slice(1) : text;
  const [pathPart = ''] = path.split('?', 1);
  if (text.includes('#')) throw new UsageError(`the path '${excerpt(text)}' holds a '#'; write it as %23 (a fragment is never sent)`);
  if (pathPart.includes('\\')) throw new UsageError(`the path '${excerpt(text)}' holds a backslash; svc api sends paths as given, with '/' between segments`);
  if (pathPart.split('/').some((s) => /^(?:\.|%2e){1,2}$/i.test(s))) {
    throw new UsageError(`the path '${excerpt(text)}' has a '.' or '..' segment; svc api sends paths as given: name the path itself`);
  }
  if (hidesEscape(pathPart)) throw escapeRefused(text);
  const first = /^[^/?]*/.exec(path)?.[0] ?? '';
  const root = Object.hasOwn(ROOT_WORDS, first) ? ROOT_WORDS[first] : undefined;
  if (root) {
    const rest = path.slice(first.length);
    return { kind: 'path', root, path: rest.startsWith('/') ? rest : `/${rest}` };
  }
  return { kind: 'path', root: 'api', path: `/${path}` };
}

/** A segment percent-decoded again and again (a server or proxy may decode twice), as far as it decodes. */
function decodings(segment: string): string[] {
  const out = [segment];
  for (let i = 0; i < 4; i++) {
    let next: string;
    try {
      next = decodeURIComponent(out[out.length - 1] as string);
    } catch {
      break;
    }
    if (next === out[out.length - 1]) break;
    out.push(next);
  }
  return out;
}

/**
 * Whether a path (no query) has a segment that a server could read as a way
 * out: one that decodes to hold '/' or '\', or that is '.' or '..' once
 * decoded or once its ';' parameters are cut off (as servlet containers do).
 */
function hidesEscape(path: string): boolean {
  return path.split('/').some((segment) =>
    decodings(segment).some((d) => d.includes('/') || d.includes('\\') || /^\.{1,2}$/.test(d.split(';', 1)[0] as string)),
  );
}

function escapeRefused(text: string): UsageError {
  return new UsageError(`the path '${excerpt(text)}' encodes a '/', a '\\' or a '.' or '..' segment; svc api sends paths as given: name the path itself`);
}

/** A path for a message: short, its secret query parameters redacted. */
function clipped(text: string): string {
  const redacted = redactQueryValues(text);
  return redacted.length > 80 ? `${redacted.slice(0, 80)}…` : redacted;
}

/** A path for a message as one inert line (shown): short, its secret query parameters redacted. */
function excerpt(text: string): string {
  return shown(clipped(text), 81);
}

/** The root and path of a target on this instance; anything that would leave the instance (or its interface) is refused. */
export function locate(target: ApiTarget, roots: InstanceRoots): { readonly root: Root; readonly path: string } {
  const located = target.kind === 'path' ? target : fromUrl(target.url, roots);
  const base = new URL(roots[located.root]);
  let url: URL;
  try {
    url = new URL(`${roots[located.root]}${located.path}`);
  } catch {
    throw new UsageError(`the path '${excerpt(located.path)}' does not make a valid URL`);
  }
  // The URL parser could still move a path (it resolves dot segments however they are spelt).
  if (url.origin !== base.origin || !(url.pathname === base.pathname || url.pathname.startsWith(`${base.pathname}/`))) {
    throw new UsageError(`the path '${excerpt(located.path)}' leads out of ${base.pathname}; name a path under it`);
  }
  return located;
}

function fromUrl(text: string, roots: InstanceRoots): { root: Root; path: string } {
  const refuse = (): UsageError =>
    new UsageError(`refusing ${excerpt(redactUrl(text))}: svc api sends the token to ${roots.instance} only; give a path such as accounts/42, or a URL under the instance`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`'${excerpt(redactUrl(text))}' is not a valid URL; give a path such as accounts/42`);
  }
  if (hidesEscape(url.pathname)) throw escapeRefused(redactUrl(text));
  const instance = new URL(roots.instance);
  if (url.origin !== instance.origin || url.username || url.password || url.hash) throw refuse();
  for (const root of ['api', 'auth', 'oauth2'] as const) {
    const base = new URL(roots[root]).pathname;
    if (url.pathname === base || url.pathname.startsWith(`${base}/`)) return { root, path: `${url.pathname.slice(base.length) || '/'}${url.search}` };
  }
  throw refuse();
}

/** The method: as given, else POST when there is a body to send (or pages to ask for), else GET. */
export function methodOf(parts: Pick<RequestParts, 'method' | 'fields' | 'input' | 'paginate'>): Method {
  return parts.method ?? (parts.fields.length > 0 || parts.input !== undefined || parts.paginate ? 'POST' : 'GET');
}

/** The family whose query a request is: POST on the collection path of a family with the list operation. */
export function queryFamilyOf(method: Method, root: Root, path: string): ResourceFamily | undefined {
  if (method !== 'POST' || root !== 'api') return undefined;
  const name = /^\/([^/?]+)(?:\?.*)?$/.exec(path)?.[1];
  const family = name === undefined ? undefined : findFamily(name);
  return family?.operations.includes('list') ? family : undefined;
}

/** The request, ready for the client (the caller adds what it accepts and its signal). */
export interface ApiRequest {
  readonly spec: RequestSpec;
  /** A query (POST on a family's collection): its family, and its body when that is a JSON object. */
  readonly query?: { readonly family: ResourceFamily; readonly body?: Record<string, unknown> };
}

function isJsonText(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Query parameters appended to a path that may have some already. */
export function withQuery(path: string, pairs: readonly (readonly [string, string])[]): string {
  if (pairs.length === 0) return path;
  const sep = !path.includes('?') ? '?' : /[?&]$/.test(path) ? '' : '&';
  return `${path}${sep}${new URLSearchParams(pairs.map(([k, v]): [string, string] => [k, v])).toString()}`;
}

/**
 * The request the parts make at this place. Fields are the JSON body (the query
 * string for GET and HEAD); --input is sent as given, typed JSON when it parses
 * as JSON (or as -H Content-Type says). A query is safe to send twice.
 */
export function toApiRequest(parts: RequestParts, at: { readonly root: Root; readonly path: string }, sources: FieldSources): ApiRequest {
  const method = methodOf(parts);
  const userType = parts.headers.find(([n]) => n === 'content-type')?.[1];
  let path = at.path;
  let raw: RequestSpec['raw'];
  let object: Record<string, unknown> | undefined;
  if (parts.input !== undefined) {
    const text = parts.input === '-' ? sources.stdin() : sources.file(parts.input);
    const parsed = isJsonText(text);
    if (parsed.ok && isRecord(parsed.value)) object = parsed.value;
    const type = userType ?? (parsed.ok ? 'application/json' : undefined);
    raw = type ? { text, type } : { text };
  } else if (parts.fields.length > 0 && (method === 'GET' || method === 'HEAD')) {
    path = withQuery(path, queryPairs(parts.fields, sources));
  } else if (parts.fields.length > 0) {
    object = buildParams(parts.fields, sources);
    raw = { text: JSON.stringify(object), type: userType ?? 'application/json' };
  }
  // With a body, -H Content-Type is its type (above); the client sets that header from it.
  const headers = Object.fromEntries(parts.headers.filter(([n]) => !(raw && n === 'content-type')).map(([n, v]) => [n, v]));
  const family = queryFamilyOf(method, at.root, path);
  const spec: RequestSpec = {
    method,
    root: at.root,
    path,
    ...(Object.keys(headers).length > 0 ? { headers } : {}),
    ...(raw ? { raw } : {}),
    ...(family ? { idempotent: true } : {}),
  };
  if (!family) return { spec };
  return { spec, query: { family, ...(object ? { body: object } : !raw ? { body: {} } : {}) } };
}

/** What --paginate asks for: the family, the query without what paging sets, and the page size. */
export interface PagePlan {
  readonly family: ResourceFamily;
  readonly query: KeysetQuery;
  readonly pageSize: number;
}

/** Members paging by ID sets itself or cannot honour. */
/** Levels of nesting the service's bodies take. */
const MAX_BODY_DEPTH = 128;
const PAGING_MEMBERS = ['sort', 'offset', 'count', 'export'] as const;
/** What to do instead of each member --paginate refuses. */
const PAGING_FIX: Readonly<Record<(typeof PAGING_MEMBERS)[number], string>> = {
  sort: 'sort the output afterwards',
  offset: "to start above an ID, filter on it: -F 'filters[ID][>]=100'",
  count: 'a count is one answer: send it without --paginate',
  export: "the service's own export is one answer: send it without --paginate",
};

/**
 * The query --paginate pages through, as `svc <family> query --all` does: by
 * ID, `limit` records a page (default 1000). `fallbackMember` is where the
 * filter goes when the body has none (the profile's choice).
 */
export function toPagePlan(req: ApiRequest, parts: Pick<RequestParts, 'headers'>, fallbackMember: 'filter' | 'filters'): PagePlan {
  const { spec, query } = req;
  if (!query) {
    throw new UsageError(`--paginate works on a query, a POST on a family's collection (e.g. 'svc api accounts -F limit=500 --paginate'), not ${spec.method} ${spec.root === 'api' ? '' : `${spec.root}`}${excerpt(spec.path)}`);
  }
  if (!query.body) throw new UsageError('--paginate needs a JSON object as the query body (fields, or --input with a JSON object)');
  if (spec.path.includes('?') || parts.headers.length > 0) {
    throw new UsageError('--paginate sends each page as svc <family> query --all does: drop the query string and -H, or page yourself with limit and an ID filter');
  }
  const body = query.body;
  // Sent again for each page as JSON: a body nested past what the service takes is refused here, not by a crash.
  if (nestsDeeperThan(body, MAX_BODY_DEPTH)) throw new UsageError(`the query body nests more than ${MAX_BODY_DEPTH} levels deep, more than the service takes; flatten it`);
  const named = PAGING_MEMBERS.find((m) => Object.hasOwn(body, m));
  if (named) throw new UsageError(`--paginate pages by ID in ID order: drop '${named}' from the body (${PAGING_FIX[named]})`);
  if (Object.hasOwn(body, 'filter') && Object.hasOwn(body, 'filters')) {
    throw new UsageError("the body has both 'filter' and 'filters'; give the filter under one of them");
  }
  const filterMember = Object.hasOwn(body, 'filter') ? 'filter' : Object.hasOwn(body, 'filters') ? 'filters' : fallbackMember;
  const { [filterMember]: filter, limit, ...rest } = body;
  const pageSize = limit === undefined ? 1000 : Number(limit);
  const sizeLike = limit === undefined || typeof limit === 'number' || (typeof limit === 'string' && limit.trim() !== '');
  if (!sizeLike || !Number.isInteger(pageSize) || pageSize < 1 || pageSize > 10000) {
    throw new UsageError(`with --paginate, 'limit' is the page size: a whole number from 1 to 10000, not ${shown(JSON.stringify(limit), 40)}`);
  }
  if (filter !== undefined && (typeof filter !== 'object' || filter === null)) {
    throw new UsageError(`'${filterMember}' must be a JSON object (or a ["AND"|"OR"|"NOT", …] array)`);
  }
  return {
    family: query.family,
    query: { body: rest, filterMember, ...(filter !== undefined ? { filter: filter as Record<string, unknown> } : {}) },
    pageSize,
  };
}
