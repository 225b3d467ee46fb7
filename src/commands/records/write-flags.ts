/**
 * What create and update share on the command line: the field arguments,
 * --data, --data-file and --tz as data, their typed form (checked before
 * anything is read or sent), and examples built from the catalogue. Also the
 * --if-match help that update and delete share.
 */
import type { ResourceFamily } from '../../catalogue/index.js';
import { str, type ArgSpec, type CommandInput, type OptionSpec } from '../../cli/command.js';
import { UsageError } from '../../errors.js';
import { shown } from '../../util/shown.js';
import { toTimeZone } from './tz-flag.js';

/** The `[fields...]` argument of create and update. */
export const fieldsArgSpec: ArgSpec = {
  name: 'fields',
  help: 'field=value (converted by type), field:=<json>, extdata.NAME=value, tags=a,b, +tags=x, -tags=y',
  optional: true,
  variadic: true,
};

/** --if-match of update and delete. */
export const ifMatchOptionSpec: OptionSpec = { flags: '--if-match <etag>', help: 'only if the record still has this ETag (else exit 5); see get --verbose' };

export const bodyOptionSpecs: readonly OptionSpec[] = [
  { flags: '--data <json>', help: 'the record as one JSON object; field arguments override its members' },
  { flags: '--data-file <file>', help: 'read that JSON object from a file, or from stdin with -' },
  { flags: '--tz <zone>', help: 'time zone for dates without an offset, e.g. Europe/Berlin (default: local)' },
];

/** The body of a create or update as the command line gives it (read and checked by buildBody). */
export interface BodyOptions {
  readonly family: ResourceFamily;
  /** `svc <family> <verb>`, for messages that point at its help. */
  readonly path: string;
  /** The field arguments, in order. */
  readonly words: readonly string[];
  readonly data?: string;
  readonly dataFile?: string;
  /** --tz, a known IANA zone (default: TZ, else the system's). */
  readonly tz?: string;
}

/** Rejects an option-looking word that the parser let through (only `-tags=…` is a field argument). */
function checkWords(words: readonly string[], path: string): void {
  for (const w of words) {
    if (w.startsWith('-') && !/^-tags:?=/.test(w)) throw new UsageError(`unknown option '${shown(w.split('=')[0] ?? w, 80)}' (run '${path} --help')`);
  }
}

/** Field arguments and body flags → BodyOptions: unknown options, --tz and --data with --data-file refused. */
export function toBodyOptions(family: ResourceFamily, verb: 'create' | 'update', words: CommandInput['args'][number], flags: CommandInput['flags']): BodyOptions {
  const path = `svc ${family.name} ${verb}`;
  const list = Array.isArray(words) ? words.map(String) : typeof words === 'string' ? [words] : [];
  checkWords(list, path);
  const data = str(flags, 'data');
  const dataFile = str(flags, 'dataFile');
  const tz = toTimeZone(flags);
  if (data !== undefined && dataFile !== undefined) throw new UsageError('give --data or --data-file, not both');
  return {
    family,
    path,
    words: list,
    ...(data !== undefined ? { data } : {}),
    ...(dataFile !== undefined ? { dataFile } : {}),
    ...(tz !== undefined ? { tz } : {}),
  };
}

function exampleValue(f: ResourceFamily['fields'][number]): string {
  if (f.pattern === '^[A-Z]{3}$') return 'EUR';
  if (f.timestamp) return '2026-05-01T09:00';
  return f.ref ? '1' : 'VALUE';
}

function exampleArgs(family: ResourceFamily, verb: 'create' | 'update'): string {
  const writable = family.fields.filter((f) => f.writable);
  const text = writable.find((f) => f.type === 'string' && !f.pattern && (verb === 'update' || !f.required));
  const named = writable.find((f) => f.name !== 'visibility' && f.enum?.[1]?.name !== undefined);
  const extra = [text ? `${text.name}=VALUE` : undefined, named ? `${named.name}=${named.enum?.[1]?.name}` : undefined];
  const required = verb === 'create' ? writable.filter((f) => f.required).map((f) => `${f.name}=${exampleValue(f)}`) : [];
  return [...required, ...extra.filter((x): x is string => x !== undefined)].join(' ') || 'field=value';
}

/** The examples of create or update for a family, with its required and typical fields. */
export function writeExamples(family: ResourceFamily, verb: 'create' | 'update'): string[] {
  const args = exampleArgs(family, verb);
  return verb === 'create'
    ? [`svc ${family.name} create ${args}`, `svc ${family.name} create --data-file record.json`, `cat record.json | svc ${family.name} create --data-file -`]
    : [`svc ${family.name} update 42 ${args}`, `svc ${family.name} update 42 --data-file changes.json --if-match '"<etag>"'`, `svc ${family.name} update 42 extdata.NAME=value +tags=vip`];
}
