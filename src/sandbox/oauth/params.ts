/**
 * The parameters of an OAuth 2.0 request, read strictly: only the names an
 * endpoint knows, each a string of bounded length (a number, object or array
 * is a problem, never coerced), empty meaning absent (RFC 6749 section 3.1),
 * own keys only, so `__proto__` or `constructor` are plain unknown names. A
 * query string must not repeat a name or carry a malformed %-escape.
 */
import { HttpError } from '../errors.js';
import { formPairs, REPEATED_NAMES } from '../http/form.js';
import { excerpt } from '../limits.js';

/** Longest value of a parameter, by name; others may have MAX_PARAM characters. */
const PARAM_LIMITS: Readonly<Record<string, number>> = {
  client_id: 200,
  username: 200,
  otp: 20,
  code: 100,
  refresh_token: 100,
  token: 1000,
  code_verifier: 128,
  code_challenge: 128,
  response_type: 100,
  response_mode: 100,
  grant_type: 100,
  code_challenge_method: 100,
  token_type_hint: 100,
  decision: 20,
  step: 20,
  csrf_token: 100,
};

/** Characters of any other parameter (redirect URIs, state, secrets, passwords). */
export const MAX_PARAM = 2000;

/** What is wrong with one parameter (or, without a name, with the request as a whole). */
export interface ParamProblem {
  readonly name?: string;
  readonly message: string;
}

/** The parameters read, and what was wrong; a parameter with a problem is absent from `values`. */
export interface Params {
  readonly values: ReadonlyMap<string, string>;
  readonly problems: readonly ParamProblem[];
  get(name: string): string | undefined;
  /** The first problem, with its parameter among `names` when given. */
  problem(names?: readonly string[]): ParamProblem | undefined;
}

function toParams(values: Map<string, string>, problems: ParamProblem[]): Params {
  return {
    values,
    problems,
    get: (name) => values.get(name),
    problem: (names) => problems.find((p) => names === undefined || (p.name !== undefined && names.includes(p.name))),
  };
}

function accept(values: Map<string, string>, problems: ParamProblem[], name: string, value: unknown): void {
  if (typeof value !== 'string') {
    problems.push({ name, message: `'${name}' must be a string` });
    return;
  }
  const limit = PARAM_LIMITS[name] ?? MAX_PARAM;
  if (value.length > limit) problems.push({ name, message: `'${name}' is longer than ${limit} characters` });
  else if (value !== '') values.set(name, value);
}

/** The parameters `names` of a parsed body (a form, or a JSON object); no body reads as no parameters. */
export function bodyParams(body: unknown, names: readonly string[]): Params {
  const values = new Map<string, string>();
  const problems: ParamProblem[] = [];
  if (body === undefined) return toParams(values, problems);
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return toParams(values, [{ message: 'the body must be a form or a JSON object whose values are strings' }]);
  }
  const repeated = (body as { [REPEATED_NAMES]?: ReadonlySet<string> })[REPEATED_NAMES];
  for (const name of names) {
    if (repeated?.has(name)) problems.push({ name, message: `'${name}' is given more than once` });
    else if (Object.hasOwn(body, name)) accept(values, problems, name, (body as Record<string, unknown>)[name]);
  }
  return toParams(values, problems);
}

/** The parameters `names` of a raw query string; a malformed escape is a problem of the whole query. */
export function queryParams(raw: string, names: readonly string[]): Params {
  const values = new Map<string, string>();
  const problems: ParamProblem[] = [];
  let pairs: [string, string][];
  try {
    pairs = formPairs(raw);
  } catch (err) {
    if (!(err instanceof HttpError)) throw err;
    return toParams(values, [{ message: err.message }]);
  }
  const seen = new Set<string>();
  for (const [name, value] of pairs) {
    if (!names.includes(name)) continue;
    if (seen.has(name)) {
      problems.push({ name, message: `'${excerpt(name)}' is given more than once` });
      values.delete(name);
      continue;
    }
    seen.add(name);
    accept(values, problems, name, value);
  }
  return toParams(values, problems);
}
