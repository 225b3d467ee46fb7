/**
 * The request of `svc <family> export`: where it goes and in which format
 * (--format, the global -o as a format or a file, the file's extension),
 * the combinations that cannot work refused before anything is sent, and the
 * export request with the fingerprint of the command line it came from.
 */
import { extname } from 'node:path';
import type { Context } from '../../../cli/context.js';
import { UsageError } from '../../../errors.js';
import { exportFormats, type ExportFormat, type ExportRequest, type Shard } from '../../../export/plan.js';
import { hasControlCharacter, sameIgnoringCase } from '../../../export/column-rules.js';
import { parquetColumns } from '../../../export/parquet/schema.js';
import { resolveShard } from '../../../export/shard-auto.js';
import { resolveOutput, type OutputTarget } from '../../../export/target.js';
import { outputFormats } from '../../../output/format.js';
import { allFields } from '../../../records/columns.js';
import { shellQuote } from '../../../util/shell-quote.js';
import { shown } from '../../../util/shown.js';
import { queryBody } from '../../../records/query-body.js';
import { buildFilter, filterMemberOf } from '../filter-flags.js';
import type { ExportOptions } from './options.js';

const BY_EXTENSION: Readonly<Record<string, ExportFormat>> = { '.csv': 'csv', '.ndjson': 'ndjson', '.jsonl': 'ndjson', '.json': 'json', '.parquet': 'parquet' };

/** Where an export goes and what it writes. */
export interface Destination {
  readonly format: ExportFormat;
  /** --shard K/N, or auto/N with K from the job array's index (absent: the whole range). */
  readonly shard?: Shard;
  /** The file named by --output-file or the global --output FILE (absent: stdout). */
  readonly outputFile?: string;
  /** What that file is (absent: stdout). */
  readonly target?: OutputTarget;
}

const isExportFormat = (s: string | undefined): s is ExportFormat => exportFormats.some((f) => f === s);

/**
 * The global --output is a format (`-o csv`) or, for export, the file to
 * write (`--output accounts.csv`, as --output-file): the spelling.
 */
function outputFileOf(opts: ExportOptions, ctx: Context): string | undefined {
  const file = givenFileOf(opts, ctx);
  if (file !== '-') return file;
  // `-` is standard output, as for the files export reads; what needs a file to come back to is refused.
  const needsFile = opts.resume ? '--resume' : opts.manifest ? '--manifest' : undefined;
  if (needsFile) throw new UsageError(`${needsFile} needs a file to write (- is standard output, which has no checkpoint or manifest beside it); give --output-file FILE`);
  return undefined;
}

/** The file named by --output-file or the global --output (`-` included). */
function givenFileOf(opts: ExportOptions, ctx: Context): string | undefined {
  const output = ctx.globals.output;
  if (output === undefined || isExportFormat(output)) return opts.outputFile;
  // -o table or -o tsv: a format of the other commands, not a file named so.
  if (outputFormats.some((f) => f === output)) {
    throw new UsageError(`export does not write ${output}: choose -o csv, ndjson, json or parquet (or --format), or a file with one of those extensions`);
  }
  if (opts.outputFile !== undefined) throw new UsageError(`give the file once: --output ${shown(output)} and --output-file ${shown(opts.outputFile)}`);
  return output;
}

/** --format, else the global -o when it names an export format, else the file's extension. */
function formatOf(opts: ExportOptions, ctx: Context, outputFile: string | undefined): ExportFormat {
  const global = ctx.globals.output;
  const asked = opts.format ?? (isExportFormat(global) ? global : undefined);
  if (isExportFormat(asked)) return asked;
  if (asked !== undefined && opts.format !== undefined) throw new UsageError(`unknown export format '${shown(asked, 80)}'; choose csv, ndjson, json or parquet`);
  const byName = outputFile ? BY_EXTENSION[extname(outputFile).toLowerCase()] : undefined;
  if (byName) return byName;
  throw new UsageError('export needs a format: --format csv, ndjson, json or parquet');
}

/**
 * --fields names as columns: never with a control character (a CSV header, a
 * JSON key or a Parquet column holding a line break or an escape), and for
 * Parquet distinct ignoring case, as DuckDB and Spark compare them (DuckDB
 * reads 'name' and 'Name' as name and Name_1, Spark calls them ambiguous).
 */
function checkColumnNames(opts: ExportOptions, format: ExportFormat): void {
  const names = (opts.selected ?? []).map((f) => f.name);
  const control = names.find(hasControlCharacter);
  if (control !== undefined) throw new UsageError(`--fields: '${shown(control, 80)}' holds a control character, which cannot be part of a column's name; name it with printable characters (alias=path)`);
  const clash = format === 'parquet' ? sameIgnoringCase(names) : undefined;
  if (!clash) return;
  const [a, b] = clash.map((n) => shown(n, 80));
  if (clash[0] === clash[1]) throw new UsageError(`--fields names the column '${a}' twice; a Parquet file needs distinct column names (rename one: alias=path)`);
  throw new UsageError(`--fields names the columns '${a}' and '${b}', which differ only in case; DuckDB and Spark take them for one column (column names ignore case): rename one (alias=path)`);
}

/** The format and the file, with the combinations that cannot work refused before anything is sent. */
export async function toDestination(opts: ExportOptions, ctx: Context): Promise<Destination> {
  const outputFile = outputFileOf(opts, ctx);
  const format = formatOf(opts, ctx, outputFile);
  const shard = opts.shard !== undefined ? resolveShard(opts.shard, ctx.deps.env) : undefined;
  if (shard && format === 'json') throw new UsageError('--shard cannot write json (concatenated arrays are not one document); use --format ndjson, csv or parquet');
  checkColumnNames(opts, format);
  if (format === 'parquet' && !outputFile && ctx.deps.stdout.isTTY) throw new UsageError('parquet is binary: write it to a file (--output FILE.parquet) or pipe it');
  if (opts.compression !== undefined && format !== 'parquet') {
    throw new UsageError(`--compression is for parquet pages; compress ${format} as it streams: svc ${opts.family.name} export --format ${format} | gzip > ${opts.family.name}.${format}.gz`);
  }
  if ((opts.resume || opts.manifest) && !outputFile) throw new UsageError(`--${opts.resume ? 'resume' : 'manifest'} needs --output-file FILE`);
  if (opts.serverSide) {
    if (format !== 'csv') throw new UsageError("--server-side writes the service's own csv; use --format csv");
    if (opts.shard || opts.concurrency !== undefined || opts.resume) throw new UsageError('--server-side is one request: drop --shard, --concurrency and --resume');
  }
  const target = outputFile ? await resolveOutput(outputFile) : undefined;
  if (target && target.kind !== 'file' && (opts.resume || opts.manifest)) {
    throw new UsageError(`--${opts.resume ? 'resume' : 'manifest'} needs a regular file; ${shown(target.given)} is ${target.what}, which svc writes straight through`);
  }
  return { format, ...(shard ? { shard } : {}), ...(outputFile !== undefined ? { outputFile } : {}), ...(target ? { target } : {}) };
}

/** The export request, and the fingerprint of what was asked (flags as typed) that ties a checkpoint to it. */
export async function toExportRequest(opts: ExportOptions, ctx: Context, dest: Pick<Destination, 'format' | 'shard'>): Promise<{ request: ExportRequest; asked: Record<string, unknown> }> {
  const { format, shard } = dest;
  const { family } = opts;
  const delimited = ctx.delimited();
  const filter = await buildFilter(family, opts, ctx);
  const filterMember = await filterMemberOf(ctx);
  const fields = opts.selected ? (queryBody({ filterMember, fields: opts.selected }).fields as ExportRequest['fields']) : undefined;
  const csv = { header: delimited.header, delimiter: opts.serverSide ? ';' : delimited.delimiter, eol: delimited.eol };
  const selected = opts.selected ?? allFields(family);
  const request: ExportRequest = {
    family: family.name,
    filterMember,
    ...(filter ? { filter } : {}),
    ...(opts.search ? { search: opts.search } : {}),
    ...(fields ? { fields } : {}),
    columns: selected.map((s) => s.name),
    format,
    csv,
    ...(shard ? { shard } : {}),
    ...(format === 'parquet' ? { parquet: parquetColumns(family, selected), codec: opts.compression === 'none' ? 'UNCOMPRESSED' : 'GZIP' } : {}),
  };
  // As the flags were typed: an option not given is absent, not empty.
  const given = (values: readonly string[]): readonly string[] | undefined => (values.length ? values : undefined);
  const asked = {
    family: family.name,
    filter: given(opts.filter),
    filterJson: given(opts.filterJson),
    // One file as before (a checkpoint of an older svc resumes); several as a list.
    filterFile: opts.filterFiles.length > 1 ? opts.filterFiles : opts.filterFiles[0],
    search: opts.search,
    tz: opts.tz,
    fields: opts.fields,
    format,
    // The shard itself (auto/N resolved): a checkpoint resumed by another task of the array is refused.
    shard: shard ? `${shard.index}/${shard.count}` : undefined,
    // The pages' codec as written (the default's and an explicit --compression gzip are one export).
    compression: request.codec,
    csv,
    filterMember,
  };
  return { request, asked };
}

/**
 * The command line, for messages about a checkpoint and the lock: every flag
 * that ties a checkpoint to its export is shown, so two exports that differ
 * never read alike.
 */
export function commandText(opts: ExportOptions, dest: Destination, csv?: ExportRequest['csv']): string {
  const q = shellQuote;
  const parts = [`svc ${opts.family.name} export --format ${dest.format}`];
  for (const f of opts.filter) parts.push(`--filter ${q(f)}`);
  for (const f of opts.filterJson) parts.push(`--filter-json ${q(f)}`);
  for (const f of opts.filterFiles) parts.push(`--filter-file ${q(f)}`);
  if (opts.search !== undefined) parts.push(`--search ${q(opts.search)}`);
  if (opts.tz !== undefined) parts.push(`--tz ${q(opts.tz)}`);
  if (opts.fields) parts.push(`--fields ${q(opts.fields)}`);
  if (dest.format === 'csv' && csv) {
    if (csv.delimiter !== undefined && csv.delimiter !== ',') parts.push(`--delimiter ${q(csv.delimiter)}`);
    if (csv.header === false) parts.push('--no-header');
    if (csv.eol === '\r\n') parts.push('--crlf');
  }
  if (opts.compression) parts.push(`--compression ${opts.compression}`);
  if (dest.shard) parts.push(`--shard ${dest.shard.index}/${dest.shard.count}`);
  if (dest.outputFile) parts.push(`--output-file ${q(dest.outputFile)}`);
  return parts.join(' ');
}
