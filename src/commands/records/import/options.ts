/** `svc <family> import`'s typed options and how its flags become them, checked against the catalogue before anything is read. */
import { resolve } from 'node:path';
import { findField, isComposite, suggestField, type ResourceFamily } from '../../../catalogue/index.js';
import { bool, str, type CommandInput } from '../../../cli/command.js';
import { UsageError } from '../../../errors.js';
import { importFormats, type ImportFormat } from '../../../import/formats.js';
import { shown } from '../../../util/shown.js';
import { didYouMean } from '../../../util/suggest.js';
import { toBulkFlags, type BulkFlags } from '../bulk-flags.js';
import { toTimeZone } from '../tz-flag.js';

export interface ImportOptions extends BulkFlags {
  readonly family: ResourceFamily;
  /** --from: a file, or - for stdin. */
  readonly from: string;
  /** --format; absent: from the file's extension, else from its first character. */
  readonly format?: ImportFormat;
  /** --key FIELD: rows are matched to records by this field (upsert). */
  readonly key?: string;
  readonly skipInvalid: boolean;
  readonly resume: boolean;
  readonly dryRun: boolean;
  /** --tz for dates without an offset in CSV cells. */
  readonly tz?: string;
}

/** --key: a stored scalar field a filter can match (not ID: rows with an ID are updated by it already). */
function checkKey(family: ResourceFamily, key: string): string {
  if (key === 'ID') throw new UsageError(`rows with an ID column are updated by ID already; --key names another field to match rows by, such as ${family.name === 'accounts' ? 'customernum' : 'a number field'}`);
  const field = findField(family, key);
  if (!field) throw new UsageError(`unknown field '${shown(key, 80)}' for --key on ${family.name}${didYouMean(key, suggestField(family, key))} (run 'svc describe ${family.name}')`);
  if (!field.filterable || isComposite(field.type) || field.type === 'binfile') {
    throw new UsageError(`${family.name}.${key} cannot be a --key: records cannot be looked up by it; choose a plain field such as a number or code`);
  }
  return key;
}

/** Flags → ImportOptions. */
export function toImportOptions(family: ResourceFamily, { flags }: CommandInput): ImportOptions {
  const from = str(flags, 'from');
  if (from === undefined || from === '') throw new UsageError(`give the file to import: --from FILE (CSV, NDJSON or a JSON array), or --from - for stdin`);
  const format = str(flags, 'format');
  if (format !== undefined && !importFormats.includes(format as ImportFormat)) {
    throw new UsageError(`unknown --format '${shown(format, 40)}'${didYouMean(format, importFormats)}; choose ${importFormats.join(', ')}`);
  }
  const key = str(flags, 'key');
  const tz = toTimeZone(flags);
  const bulk = toBulkFlags(flags);
  if (bulk.results !== undefined && from !== '-' && resolve(bulk.results) === resolve(from)) throw new UsageError(`--results would overwrite the file being imported ('${shown(from)}'); name another file`);
  const resume = bool(flags, 'resume');
  if (resume && bulk.results === undefined) throw new UsageError('--resume continues from the results file: give it with --results FILE');
  return {
    family,
    from,
    ...(format !== undefined ? { format: format as ImportFormat } : {}),
    ...(key !== undefined ? { key: checkKey(family, key) } : {}),
    ...bulk,
    skipInvalid: bool(flags, 'skipInvalid'),
    resume,
    dryRun: bool(flags, 'dryRun'),
    ...(tz !== undefined ? { tz } : {}),
  };
}
