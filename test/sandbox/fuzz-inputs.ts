/**
 * Generators of hostile requests for the sandbox fuzz suite (fast-check).
 * A request is a small description; the big bodies (10k-deep nesting, huge
 * arrays and strings, bad bytes) are named special bodies built only when
 * sent, so a failing case prints short and replays from its seed. Composites
 * here have at most 4 children; the wide ones (hundreds of heavy patterns)
 * come from fuzz-wide.ts.
 */
import fc from 'fast-check';
import { families } from '../../src/catalogue/index.js';
import { wideCompositeRequest, type WideSpec } from './fuzz-wide.js';

/** Who sends a request: a seeded user's fuzz token, a token that is no token, or nobody. */
export type FuzzUser = 'demo' | 'reader' | 'field' | 'staff' | 'garbage' | null;

export type FuzzBody =
  | { readonly kind: 'json'; readonly value: unknown; readonly type: string }
  | { readonly kind: 'form'; readonly value: unknown }
  | { readonly kind: 'raw'; readonly text: string; readonly type: string }
  | { readonly kind: 'special'; readonly name: keyof typeof SPECIAL; readonly type: string }
  | { readonly kind: 'wide'; readonly spec: WideSpec; readonly form: boolean };

/** OAuth client credentials sent with HTTP Basic: the seeded svc-cli's, or a wrong secret. */
export type FuzzClient = 'svc-cli' | 'wrong';

export interface FuzzRequest {
  readonly method: string;
  /** Path after the origin, already percent-encoded (or deliberately malformed). */
  readonly path: string;
  readonly user: FuzzUser;
  /** Basic client credentials in place of the user's bearer token (OAuth token endpoints). */
  readonly client?: FuzzClient;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: FuzzBody;
}

const PROTO_KEYS = ['__proto__', 'constructor', 'prototype'];
const OPERATORS = ['=', '!=', '<>', '<', '<=', '>', '>=', 'IN', '!IN', 'in', '~', '~*', '!~', '!~*', '~~', '~~*', '!~~', '!~~*', '=~', ''];
const REGEXES = ['^([\\s\\S]{1,18}?)+$X', '(a+)+$', '(a|aa)+b', '(a*)*b', '(.*a){20}', '(a)\\1', '(?=a)', '(?<!a)b', '(', '[a-', 'a{1000}{1000}', '\\p{L}+', '(?i)a'];
const LIKES = ['%a%a%a%a%a%a%a%a%b', `${'%_'.repeat(40)}b`, '%%%%%%%%', '\\', '\\%', '_%_%_%_%_', `${'a%'.repeat(200)}b`, '%ß%', '%ẞ%'];
const NASTY = [null, true, false, 0, -1, 1.5, 2 ** 53, -(2 ** 53), 2 ** 63, 1e308, 'NaN', 'Infinity', '-0', '1e999', '0x10', '', ' ', '9007199254740993', '-9007199254740993', '%', '\\', '\u0000', '\ud800', 'a'.repeat(2000), ...PROTO_KEYS];

const pick = <T>(xs: readonly T[]): fc.Arbitrary<T> => fc.constantFrom(...xs);

/** Big or malformed bodies, built on demand. */
export const SPECIAL = {
  deepArrays: () => `${'['.repeat(10_000)}${']'.repeat(10_000)}`,
  deepObjects: () => `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`,
  deepFilter: () => `{"filter":${'["AND",'.repeat(5_000)}{"type":1}${']'.repeat(5_000)}}`,
  hugeArray: () => `{"filter":{"ID":{"IN":[${'1,'.repeat(200_000)}1]}}}`,
  hugeOr: () => JSON.stringify({ filter: ['OR', ...Array.from({ length: 20_000 }, (_, i) => ({ ID: i }))] }),
  hugeString: () => JSON.stringify({ query: 'ab '.repeat(400_000), lastname: 'x'.repeat(1_000_000) }),
  hugeKeys: () => JSON.stringify(Object.fromEntries(Array.from({ length: 50_000 }, (_, i) => [`k${i}`, i]))),
  bigIntegers: () => '{"filter":{"ID":9007199254740993},"limit":99999999999999999999,"offset":1e400,"contact":-9007199254740993}',
  badUtf8: () => Buffer.from([0x7b, 0x22, 0x61, 0xc3, 0x28, 0x22, 0x3a, 0xff, 0x7d]),
  bom: () => `\ufeff{"limit":1}`,
  protoForm: () => '__proto__[admin]=1&constructor[prototype][admin]=1&filter[__proto__][admin]=1&a[__proto__][b]=1',
  deepForm: () => `filter${'[a]'.repeat(5_000)}=1&${'['.repeat(5_000)}=1`,
  badEscapes: () => '%E0%A4%A=1&%zz=%&filter[%ff]=%c3%28&sort[]=%',
} as const;

const key = (family: string): fc.Arbitrary<string> => {
  const names = families.find((f) => f.name === family)?.fields.map((f) => f.name) ?? ['ID'];
  return fc.oneof(
    { weight: 4, arbitrary: pick(names) },
    { weight: 1, arbitrary: pick(['extdata.x', 'contact.city', 'account.lastname', 'a.b.c', '0', '1', 'AND', ...PROTO_KEYS]) },
    { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
  );
};

const scalar: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: pick(NASTY) },
  { weight: 2, arbitrary: fc.oneof(fc.string({ maxLength: 20 }), fc.string({ unit: 'binary', maxLength: 10 }), fc.integer(), fc.double()) },
  { weight: 2, arbitrary: pick([...REGEXES, ...LIKES]) },
);

/** Any JSON value with hostile keys and leaves, a few levels deep. */
export const anyJson: fc.Arbitrary<unknown> = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    fc.array(tie('v'), { maxLength: 4 }),
    fc.dictionary(fc.oneof(pick(PROTO_KEYS), fc.string({ maxLength: 8 })), tie('v'), { maxKeys: 4 }),
  ),
})).v;

function filterOf(family: string): fc.Arbitrary<unknown> {
  const condition = fc.dictionary(key(family), fc.oneof(scalar, fc.dictionary(pick(OPERATORS), fc.oneof(scalar, fc.array(scalar, { maxLength: 5 })), { maxKeys: 3 })), { maxKeys: 3 });
  return fc.letrec<{ f: unknown }>((tie) => ({
    f: fc.oneof({ depthSize: 'small' }, condition, fc.tuple(pick(['AND', 'OR', 'NOT', 'and', 'XOR']), fc.array(tie('f'), { maxLength: 4 })).map(([j, c]) => [j, ...c]), anyJson),
  })).f;
}

function queryBody(family: string): fc.Arbitrary<unknown> {
  const list = fc.oneof(fc.array(key(family), { maxLength: 6 }), anyJson);
  return fc.oneof(
    { weight: 5, arbitrary: fc.record(
      { filter: filterOf(family), filters: filterOf(family), fields: fc.oneof(list, fc.dictionary(fc.string({ maxLength: 6 }), key(family), { maxKeys: 4 })), sort: list, limit: scalar, offset: scalar, count: scalar, distinct: scalar, export: scalar, query: scalar, expand: list, extdata: scalar, [PROTO_KEYS[0] as string]: anyJson },
      { requiredKeys: [] },
    ) },
    { weight: 1, arbitrary: anyJson },
  );
}

function writeBody(family: string): fc.Arbitrary<unknown> {
  return fc.oneof(fc.dictionary(fc.oneof(key(family), pick(['ID', 'extdata', 'tags', '+tags', '-tags'])), fc.oneof(scalar, anyJson), { maxKeys: 6 }), anyJson);
}

const CONTENT_TYPES = ['application/json', 'application/json; charset=utf-8', '', 'text/plain', 'application/x-www-form-urlencoded', 'application/vnd.api+json', 'multipart/form-data; boundary=x'];

function bodyOf(value: fc.Arbitrary<unknown>): fc.Arbitrary<FuzzBody> {
  return fc.oneof(
    { weight: 6, arbitrary: fc.record({ kind: fc.constant('json' as const), value, type: fc.oneof({ weight: 5, arbitrary: fc.constant('application/json') }, pick(CONTENT_TYPES)) }) },
    { weight: 4, arbitrary: fc.record({ kind: fc.constant('form' as const), value }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('raw' as const), text: fc.string({ unit: 'binary', maxLength: 40 }), type: pick(CONTENT_TYPES) }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('special' as const), name: pick(Object.keys(SPECIAL) as (keyof typeof SPECIAL)[]), type: pick(CONTENT_TYPES) }) },
  );
}

const ID_TEXT = ['1', '2', '61', '0', '007', '9007199254740991', '9007199254740992', '9007199254740993', '123456789012345678901234567890', '-1', '1e3', '0x10', 'abc', '%ZZ', '%E0%A4%A', '..', '%2F', 'a'.repeat(5000)];
const SEGMENT = ['%', '%E0%A4%A', '%ff', '%00', '..', '.', '%2e%2e', '%2F', 'x'.repeat(3000), '__proto__', 'constructor', 'api', 'v1', ';', '%3B'];

/** Parameter names of the OAuth interface, and values that get past its first checks or attack them. */
const OAUTH_NAMES = [
  'client_id', 'client_secret', 'redirect_uri', 'response_type', 'response_mode', 'state', 'code_challenge', 'code_challenge_method',
  'grant_type', 'code', 'code_verifier', 'refresh_token', 'username', 'password', 'otp', 'token', 'token_type_hint', 'step', 'csrf_token', 'decision', 'scope',
  ...PROTO_KEYS,
];
const OAUTH_VALUES = [
  'svc-cli', 'reporting', 'retired', 'code', 'token', 'S256', 'plain', 'query', 'form_post', 'authorization_code', 'refresh_token', 'password',
  'client_credentials', 'approve', 'deny', 'signin', 'otp', 'consent', 'demo', 'secure', '123456', 'f'.repeat(40), 'a'.repeat(64), 'A'.repeat(43),
  'http://127.0.0.1:1/callback', 'http://localhost:65535/callback', 'http://127.0.0.1/callback#x', 'https://evil.example/cb', 'http://evil.example/cb',
  'javascript:alert(1)', '//evil.example', '"><script>alert(1)</script>', 'x'.repeat(3000),
];
const oauthFields: fc.Arbitrary<Record<string, unknown>> = fc.dictionary(pick(OAUTH_NAMES), fc.oneof({ weight: 3, arbitrary: pick(OAUTH_VALUES) }, scalar), { maxKeys: 8 });
/** A query string of OAuth parameters, or a malformed one. */
const oauthQuery: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: oauthFields.map((f) => new URLSearchParams(Object.entries({ client_id: 'svc-cli', redirect_uri: 'http://127.0.0.1:1/callback', ...f }).map(([k, v]): [string, string] => [k, String(v)])).toString()) },
  { weight: 1, arbitrary: pick(['client_id=%zz', 'client_id=svc-cli&client_id=svc-cli', 'redirect_uri=%E0%A4%A&client_id=svc-cli', '%', '&&&=', `state=${'%41'.repeat(3000)}`]) },
);

/** Requests to the OAuth 2.0 interface: the authorize pages and the token endpoints, with or without client credentials. */
function oauthRequest(): fc.Arbitrary<{ method: string; path: string; body?: FuzzBody; client?: FuzzClient }> {
  const endpoint = pick(['authorize', 'token', 'revoke', 'introspect', 'userinfo']);
  const client = fc.option(pick<FuzzClient>(['svc-cli', 'svc-cli', 'wrong']), { nil: undefined });
  return fc.oneof(
    fc.record({ method: fc.constant('GET'), path: oauthQuery.map((q) => `/demo/oauth2/v1/authorize?${q}`) }),
    fc.record({ method: fc.constant('POST'), path: endpoint.map((e) => `/demo/oauth2/v1/${e}`), body: bodyOf(fc.oneof({ weight: 3, arbitrary: oauthFields }, anyJson)), client }),
    fc.record({ method: pick(['GET', 'PUT', 'DELETE', 'OPTIONS']), path: endpoint.map((e) => `/demo/oauth2/v1/${e}`), client }),
  );
}

const HEADERS = fc.record(
  {
    'if-match': pick(['*', '"x"', 'W/"x", "y"', ',,,', '"'.repeat(100)]),
    'if-none-match': pick(['*', '"x"', 'garbage']),
    'if-modified-since': pick(['garbage', 'Thu, 01 Jan 1970 00:00:00 GMT', '9999999999999999999', 'Sat, 31 Dec 275760 00:00:00 GMT']),
    'if-unmodified-since': pick(['garbage', 'Thu, 01 Jan 1970 00:00:00 GMT', '-1']),
    accept: pick(['*/*', 'text/csv', 'application/json;q=x', ';;;']),
    cookie: pick([`SERVICEID=${'a'.repeat(64)}`, 'SERVICEID=', 'SERVICEID=%zz; SERVICEID=1', ';;;=', `SERVICEID=${'f'.repeat(5000)}`]),
  },
  { requiredKeys: [] },
);

/** One hostile request to any route of the sandbox, now and then a wide composite of heavy patterns (fuzz-wide.ts). */
export function fuzzRequest(): fc.Arbitrary<FuzzRequest> {
  const family = fc.oneof({ weight: 3, arbitrary: fc.constant('accounts') }, pick(families.map((f) => f.name)));
  const user = pick<FuzzUser>(['demo', 'reader', 'field', 'staff', 'staff', 'garbage', null]);
  const data = family.chain((f) =>
    fc.oneof(
      fc.record({ method: fc.constant('POST'), path: fc.constant(`/demo/api/v1/${f}`), body: fc.option(bodyOf(queryBody(f)), { nil: undefined }) }),
      fc.record({ method: fc.constant('PUT'), path: fc.constant(`/demo/api/v1/${f}`), body: fc.option(bodyOf(writeBody(f)), { nil: undefined }) }),
      fc.record({ method: pick(['GET', 'HEAD', 'DELETE']), path: pick(ID_TEXT).map((id) => `/demo/api/v1/${f}/${id}`) }),
      fc.record({ method: fc.constant('PATCH'), path: pick(ID_TEXT).map((id) => `/demo/api/v1/${f}/${id}`), body: fc.option(bodyOf(writeBody(f)), { nil: undefined }) }),
    ),
  );
  const other = fc.oneof(
    fc.record({ method: pick(['GET', 'HEAD', 'POST', 'PATCH']), path: pick(['/demo/api/v1/config', '/demo/api/v1/settings', '/demo/api/v1/settings/1', '/demo/api/v1']) }),
    fc.record({ method: pick(['GET', 'HEAD', 'POST', 'DELETE']), path: pick(['/demo/auth/v1', '/demo/auth/v1/', '/demo/auth/v1/logout', '/demo/auth/v1/login', '/demo/auth/v1/nope', '/demo/auth/v1/login/x']) }),
    fc.record({ method: fc.constant('POST'), path: fc.constant('/demo/auth/v1/login'), body: bodyOf(fc.oneof(anyJson, fc.dictionary(pick(['name', 'password', 'identifier', 'appsecret', 'otp', 'expdate', ...PROTO_KEYS]), scalar))) }),
    fc.record({ method: pick(['GET', 'POST', 'OPTIONS']), path: pick(['authorize', 'token', 'revoke', 'introspect', 'userinfo', '', 'nope', 'token/x']).map((p) => `/demo/oauth2/v1/${p}`), body: fc.option(bodyOf(anyJson), { nil: undefined }) }),
    oauthRequest(),
    oauthRequest(),
    fc.record({ method: pick(['GET', 'POST', 'PROPFIND', 'OPTIONS']), path: fc.array(pick(SEGMENT), { minLength: 0, maxLength: 5 }).map((s) => `/${s.join('/')}`) }),
    fc.record({ method: pick(['GET', 'POST']), path: fc.array(pick(SEGMENT), { maxLength: 3 }).map((s) => `/demo/api/v1/${s.join('/')}`) }),
    fc.record({ method: fc.constant('GET'), path: pick(['/_sandbox/health', '/_sandbox/health?x=%', '/nope/api/v1/accounts', '/demo/api/v2/accounts', '/demo/oauth2/v1']) }),
  );
  const mixed = fc.record({ route: fc.oneof({ weight: 5, arbitrary: data }, { weight: 2, arbitrary: other }), user, headers: HEADERS }).map(({ route, user: u, headers }) => {
    // Fuzzed writes as demo (an admin) could legitimately delete the probe's hidden account: staff writes instead.
    const writer = u === 'demo' && ['PUT', 'PATCH', 'DELETE'].includes(route.method) ? 'staff' : u;
    return { ...route, user: writer, headers };
  });
  // About 14 wide composites a run (4,800 requests): rare, since each within the limits spends the pattern budget.
  return fc.oneof({ weight: 350, arbitrary: mixed }, { weight: 1, arbitrary: wideCompositeRequest() });
}
