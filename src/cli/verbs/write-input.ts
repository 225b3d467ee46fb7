/**
 * The body of a create or update from the command line: `--data JSON`,
 * `--data-file FILE` (or `-` for stdin, never read otherwise), then the field
 * arguments over it, checked against the catalogue before anything is sent.
 */
import { readFile } from 'node:fs/promises';
import type { ResourceFamily } from '../../catalogue/index.js';
import { UsageError } from '../../errors.js';
import { applyAssignments, type RecordBody } from '../../records/convert.js';
import { isTimeZone, localTimeZone } from '../../records/timestamp.js';
import { assertValidBody, type WriteMode } from '../../records/validate.js';
import type { Deps } from '../deps.js';
import { readAllStdin } from '../prompt.js';

/** Options of create and update. */
export interface BodyOptions {
  data?: string;
  dataFile?: string;
  tz?: string;
}

function parseObject(text: string, source: string): RecordBody {
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (err) {
    throw new UsageError(`${source} is not valid JSON (${(err as Error).message.split('\n')[0]}); give one JSON object such as '{"lastname": "Acme"}'`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new UsageError(`${source} must be one JSON object of field values, not ${Array.isArray(value) ? 'an array' : String(value)}`);
  }
  return value as RecordBody;
}

async function readDataFile(file: string, deps: Deps): Promise<string> {
  if (file === '-') return readAllStdin(deps);
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    const code = (err as { code?: string }).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : (code ?? 'unreadable');
    throw new UsageError(`cannot read --data-file '${file}': ${why}; check the path (or use - for stdin)`);
  }
}

/** The base object from --data or --data-file, or an empty one. */
async function baseOf(opts: BodyOptions, deps: Deps): Promise<RecordBody> {
  if (opts.data !== undefined && opts.dataFile !== undefined) throw new UsageError('give --data or --data-file, not both');
  if (opts.data !== undefined) return parseObject(opts.data, '--data');
  if (opts.dataFile !== undefined) {
    const source = opts.dataFile === '-' ? 'stdin (--data-file -)' : `--data-file '${opts.dataFile}'`;
    return parseObject(await readDataFile(opts.dataFile, deps), source);
  }
  return {};
}

/** The time zone for dates: --tz, else TZ, else the system's. */
export function zoneOf(opts: BodyOptions, deps: Deps): string {
  if (opts.tz === undefined) return localTimeZone(deps.env);
  if (!isTimeZone(opts.tz)) throw new UsageError(`unknown time zone '${opts.tz}' for --tz; use an IANA name such as Europe/Berlin or UTC`);
  return opts.tz;
}

/** Rejects an option-looking word that commander let through (only `-tags=…` is a field argument). */
function checkWords(words: readonly string[], path: string): void {
  for (const w of words) {
    if (w.startsWith('-') && !/^-tags:?=/.test(w)) throw new UsageError(`unknown option '${w.split('=')[0]}' (run '${path} --help')`);
  }
}

/**
 * The body to send: the --data object with the field arguments applied, each
 * value converted and checked. Throws a usage error (exit 2) naming the first
 * problem; nothing has been sent then.
 */
export async function buildBody(
  family: ResourceFamily,
  words: readonly string[],
  opts: BodyOptions,
  deps: Deps,
  mode: WriteMode,
  path: string,
): Promise<RecordBody> {
  checkWords(words, path);
  const zone = zoneOf(opts, deps);
  const body = applyAssignments(family, await baseOf(opts, deps), words, zone);
  if (mode === 'update' && Object.keys(body).length === 0) {
    throw new UsageError(`nothing to update; give field=value arguments, --data or --data-file (see '${path} --help')`);
  }
  assertValidBody(family, body, mode);
  return body;
}
