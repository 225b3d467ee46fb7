/**
 * Shared options and help text of create and update: the field argument
 * syntax, --data, --data-file, --tz and examples built from the catalogue.
 */
import type { Command } from 'commander';
import type { ResourceFamily } from '../../catalogue/index.js';

/** Help of the `[fields...]` argument. */
export const FIELDS_HELP = 'field=value (converted by type), field:=<json>, extdata.NAME=value, tags=a,b, +tags=x, -tags=y';

/** Help of --if-match. */
export const IF_MATCH_HELP = 'only if the record still has this ETag (else exit 5); see get --verbose';

/**
 * Adds --data, --data-file and --tz, and lets `-tags=x` through as a field
 * argument (other unknown options are refused by the command itself).
 */
export function addBodyOptions(cmd: Command): Command {
  return cmd
    .option('--data <json>', 'the record as one JSON object; field arguments override its members')
    .option('--data-file <file>', 'read that JSON object from a file, or from stdin with -')
    .option('--tz <zone>', 'time zone for dates without an offset, e.g. Europe/Berlin (default: local)')
    .allowUnknownOption();
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

/** The Examples section of create or update for a family. */
export function writeExamples(family: ResourceFamily, verb: 'create' | 'update'): string {
  const args = exampleArgs(family, verb);
  const lines =
    verb === 'create'
      ? [`svc ${family.name} create ${args}`, `svc ${family.name} create --data-file record.json`, `cat record.json | svc ${family.name} create --data-file -`]
      : [`svc ${family.name} update 42 ${args}`, `svc ${family.name} update 42 --data-file changes.json --if-match '"<etag>"'`, `svc ${family.name} update 42 extdata.NAME=value +tags=vip`];
  return `\nExamples:\n${lines.map((l) => `  ${l}`).join('\n')}\n`;
}
