/**
 * The body of a create or update: `--data JSON`, `--data-file FILE` (or `-`
 * for stdin, never read otherwise), then the field arguments over it, checked
 * against the catalogue before anything is sent.
 */
import type { Context } from '../../cli/context.js';
import { UsageError } from '../../errors.js';
import { ReadBoundError } from '../../util/read-bounded.js';
import { readInputBytes, readStreamBytes, utf8Text } from '../../util/read-input.js';
import { shown } from '../../util/shown.js';
import { applyAssignments, type RecordBody } from '../../records/convert.js';
import { localTimeZone } from '../../records/timestamp.js';
import { assertValidBody, type WriteMode } from '../../records/validate.js';
import type { BodyOptions } from './write-flags.js';

function parseObject(text: string, source: string): RecordBody {
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (err) {
    throw new UsageError(`${source} is not valid JSON (${shown((err as Error).message.split('\n')[0] ?? '')}); give one JSON object such as '{"lastname": "Acme"}'`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new UsageError(`${source} must be one JSON object of field values, not ${Array.isArray(value) ? 'an array' : shown(String(value), 40)}`);
  }
  return value as RecordBody;
}

/** The text of --data-file (- for stdin): UTF-8, a leading byte-order mark dropped; a byte that is not UTF-8 is a usage error. */
async function readDataFile(file: string, ctx: Context): Promise<string> {
  let bytes: Buffer;
  if (file === '-') bytes = await readStreamBytes(ctx.deps.stdin);
  else {
    try {
      bytes = await readInputBytes(file, () => void ctx.deps.stderr.write(`svc: waiting for a writer to --data-file ${shown(file)} (a FIFO)\n`));
    } catch (err) {
      const code = err instanceof ReadBoundError ? 'too-large' : (err as { code?: string }).code;
      const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : code === 'too-large' ? 'it holds more than 64 MB' : (code ?? 'unreadable');
      throw new UsageError(`cannot read --data-file '${shown(file)}': ${why}; check the path (or use - for stdin)`);
    }
  }
  const source = file === '-' ? 'stdin (--data-file -)' : `--data-file '${shown(file)}'`;
  if (bytes.length === 0) throw new UsageError(`${source} is empty; it must hold one JSON object of field values such as '{"lastname": "Acme"}'`);
  const text = utf8Text(bytes);
  if (!text.ok) throw new UsageError(`${source} is not valid JSON: it is ${text.problem}; save it as UTF-8`);
  return text.text;
}

/** The base object from --data or --data-file, or an empty one. */
async function baseOf(opts: BodyOptions, ctx: Context): Promise<RecordBody> {
  if (opts.data !== undefined) return parseObject(opts.data, '--data');
  if (opts.dataFile !== undefined) {
    const source = opts.dataFile === '-' ? 'stdin (--data-file -)' : `--data-file '${shown(opts.dataFile)}'`;
    return parseObject(await readDataFile(opts.dataFile, ctx), source);
  }
  return {};
}

/**
 * The body to send: the --data object with the field arguments applied, each
 * value converted and checked. Throws a usage error (exit 2) naming the first
 * problem; nothing has been sent then.
 */
export async function buildBody(opts: BodyOptions, mode: WriteMode, ctx: Context): Promise<RecordBody> {
  const zone = opts.tz ?? localTimeZone(ctx.deps.env);
  const body = applyAssignments(opts.family, await baseOf(opts, ctx), opts.words, zone);
  if (mode === 'update' && Object.keys(body).length === 0) {
    throw new UsageError(`nothing to update; give field=value arguments, --data or --data-file (see '${opts.path} --help')`);
  }
  assertValidBody(opts.family, body, mode);
  return body;
}
