/** `svc api`'s typed options and how its arguments and flags become them (pure: nothing is read or sent). */
import { bool, list, str, type CommandInput } from '../../cli/command.js';
import { UsageError } from '../../errors.js';
import { shown } from '../../util/shown.js';
import { parseField, readsStdin } from './fields.js';
import { METHODS, parseTarget, type Header, type Method, type RequestParts } from './request.js';

export interface ApiOptions extends RequestParts {
  /** -i: the status line and response headers before the body. */
  readonly include: boolean;
  /** --dry-run: print the request, send nothing. */
  readonly dryRun: boolean;
}

/** Headers svc sets itself: the token (one of its own sources gives another) and the message's framing. */
const OWN_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection']);
const TOKEN_CHARS = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

function toMethod(text: string, where: string): Method {
  const m = METHODS.find((x) => x === text.toUpperCase());
  if (!m) throw new UsageError(`unknown method '${shown(text, 40)}'${where} (use ${METHODS.join(', ')})`);
  return m;
}

/** `-H 'Name: value'` → [name in lower case, value]. */
export function parseHeader(text: string): Header {
  const colon = text.indexOf(':');
  const name = (colon < 0 ? text : text.slice(0, colon)).trim();
  if (colon < 0 || !TOKEN_CHARS.test(name)) throw new UsageError(`-H '${shown(name, 40)}': give a header as 'Name: value'`);
  const lower = name.toLowerCase();
  if (lower === 'authorization') {
    throw new UsageError("-H Authorization is refused: svc api sends the profile's token; to send another one use --token-file FILE or SVC_TOKEN");
  }
  if (OWN_HEADERS.has(lower)) throw new UsageError(`-H ${name}: svc sets this header itself; leave it out`);
  const value = text.slice(colon + 1).trim();
  // Refused here, or the header would split the request (or Node would throw its own words).
  if (/[\r\n\0]/.test(value)) throw new UsageError(`-H ${name}: a header value cannot hold a line break or NUL`);
  // Node sends a header as Latin-1 (é as the byte 0xE9, not the UTF-8 typed) and refuses what Latin-1 has not
  // (☕, …) or controls: a value is printable ASCII (and tabs), the same here, in --dry-run and on the wire.
  const odd = /[^\t\x20-\x7e]/u.exec(value)?.[0];
  if (odd !== undefined) {
    const code = `U+${(odd.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
    throw new UsageError(`-H ${name}: a header value is printable ASCII text, and this one holds ${code}${/[\p{L}\p{N}\p{P}\p{S}]/u.test(odd) ? ` (${shown(odd)})` : ''}; write it in ASCII (e.g. percent-encoded)`);
  }
  return [lower, value];
}

/** Headers in order, one a name: a repeated name joins its values with ', ' as HTTP allows. */
function mergeHeaders(headers: readonly Header[]): Header[] {
  const byName = new Map<string, string>();
  for (const [n, v] of headers) byName.set(n, byName.has(n) ? `${byName.get(n)}, ${v}` : v);
  return [...byName];
}

/** `[METHOD] PATH` and the flags → ApiOptions; a UsageError names what is wrong and the fix. */
export function toApiOptions(input: CommandInput): ApiOptions {
  const words = input.args.filter((a): a is string => typeof a === 'string');
  if (words.length > 2) throw new UsageError(`svc api takes [METHOD] PATH, not ${words.length} words; quote a path with spaces`);
  const [first, second] = words;
  const { flags } = input;
  const given = second === undefined ? undefined : toMethod(first ?? '', " before the path (svc api [METHOD] PATH)");
  const flagged = str(flags, 'method');
  const x = flagged === undefined ? undefined : toMethod(flagged, ' for -X');
  if (given && x && given !== x) throw new UsageError(`two methods given (${given} and -X ${x}); give one`);
  const path = second ?? first ?? '';
  // A blank path (an unset variable in quotes) would be GET /api/v1/: refused, as an empty one is.
  if (path !== '' && path.trim() === '') throw new UsageError("svc api's PATH is blank; give a path such as accounts or accounts/1 (svc api [METHOD] PATH)");
  const target = parseTarget(path);
  const fields = [...list(flags, 'rawField').map((f) => parseField(f, false)), ...list(flags, 'field').map((f) => parseField(f, true))];
  const inputFile = str(flags, 'input');
  if (inputFile !== undefined && fields.length > 0) throw new UsageError('--input sends the body as given: drop -f/-F (or put those fields in the file)');
  if (fields.some((f) => f.typed && f.value === '@')) throw new UsageError('-F key=@ needs a file name: key=@FILE, or key=@- for standard input');
  if (fields.filter(readsStdin).length + (inputFile === '-' ? 1 : 0) > 1) {
    throw new UsageError('standard input can be read once: give @- (or --input -) to one field only, and the rest as files');
  }
  const method = given ?? x;
  const paginate = bool(flags, 'paginate');
  const include = bool(flags, 'include');
  if (paginate && include) throw new UsageError('--paginate prints one JSON array of every page: drop -i');
  if (paginate && method && method !== 'POST') {
    throw new UsageError(`--paginate works on a query, a POST on a family's collection (e.g. 'svc api accounts -F limit=500 --paginate'), not ${method}`);
  }
  return {
    ...(method ? { method } : {}),
    target,
    fields,
    headers: mergeHeaders(list(flags, 'header').map(parseHeader)),
    ...(inputFile !== undefined ? { input: inputFile } : {}),
    include,
    paginate,
    dryRun: bool(flags, 'dryRun'),
  };
}
