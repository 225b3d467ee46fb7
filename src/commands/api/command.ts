/** `svc api [METHOD] PATH`: any operation of the service, as gh api does it (the typed options: options.ts). */
import type { CommandSpec } from '../../cli/command.js';
import { toApiOptions, type ApiOptions } from './options.js';

export const apiSpec: CommandSpec<ApiOptions> = {
  name: 'api',
  summary: 'send any request to the service with your credentials, like gh api',
  // One variadic argument keeps the usage short in svc --help; toApiOptions takes [METHOD] PATH from it.
  args: [{ name: 'path', help: '[METHOD] PATH: the path (accounts/42, config, auth/…, oauth2/…), the method before it if you like', variadic: true }],
  options: [
    { flags: '-X, --method <method>', help: 'GET, HEAD, POST, PUT, PATCH or DELETE (default GET; POST with fields, --input or --paginate)' },
    { flags: '-f, --raw-field <key=value>', help: 'a string field (repeatable); keys nest: filters[type]=1, fields[]=ID', repeatable: true },
    { flags: '-F, --field <key=value>', help: 'a typed field (repeatable): true, false, null and numbers as JSON, @FILE a file\'s text, @- standard input', repeatable: true },
    { flags: '-H, --header <name:value>', help: "a request header, e.g. -H 'If-Match: \"…\"' (repeatable)", repeatable: true },
    { flags: '--input <file>', help: 'the body as given, from a file (- for standard input); sent as JSON when it parses as JSON' },
    { flags: '-i, --include', help: 'print the status line and response headers before the body' },
    { flags: '--paginate', help: 'every page of a query, in ID order, as one JSON array (-o ndjson: a record a line)' },
    { flags: '--dry-run', help: 'print the request (secrets redacted) and send nothing' },
  ],
  notes: `The path is under the data interface (<instance>/api/v1): accounts, accounts/42?extdata=1,
config; auth/… and oauth2/… go to the other two. It is sent as given. A full URL is taken only
under the instance: the request carries the profile's token.

Fields make a JSON body, sent with POST unless -X says otherwise; with -X GET (or HEAD) they are
the query string. -F 'ids[]=1' -F 'ids[]=2' is a list, -F 'filters[ID][>]=100' an object, -F 'ids[]'
an empty list; @FILE is the file's text, not parsed JSON (send a JSON body with --input).

The body is written as it came. An error status exits as every command does (404: 3, 401/403: 4,
409/410/412: 5, others 1) with the service's message on stderr, and a JSON error body still on
stdout. A query (POST on a family's collection) may be retried; other writes are sent once.`,
  examples: [
    'svc api accounts/42',
    "svc api accounts -f 'fields[]=ID' -f 'fields[]=lastname' -F 'filters[type]=1' -F limit=10",
    'svc api accounts -F limit=500 --paginate -o ndjson > accounts.ndjson',
    "svc api PATCH accounts/42 -f firstname=Ada -H 'If-Match: \"…\"'",
    'svc api PUT accounts --input account.json',
    'svc api -X GET accounts/42 -F extdata=1 -i',
    'svc api auth',
    'svc api POST accounts -F count=true --dry-run',
  ],
  toOptions: ({ args, flags }) => toApiOptions({ args: Array.isArray(args[0]) ? args[0] : args, flags }),
  run: async (opts, ctx) => (await import('./run.js')).runApi(opts, ctx),
};
