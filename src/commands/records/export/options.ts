/** `svc <family> export`'s typed options and how its flags become them; what depends on the global -o is settled by the run. */
import { findFamily, type ResourceFamily } from '../../../catalogue/index.js';
import { bool, str } from '../../../cli/command.js';
import { parseCount, parseFields, type Selected } from '../../../records/query-body.js';
import { UsageError } from '../../../errors.js';
import { toFilterOptions, type FilterOptions } from '../filter-flags.js';
import { shown } from '../../../util/shown.js';

export interface ExportOptions extends FilterOptions {
  readonly family: ResourceFamily;
  /** --fields as typed (a checkpoint's fingerprint keeps it so) … */
  readonly fields?: string;
  /** … and as parsed (absent: every field). */
  readonly selected?: readonly Selected[];
  /** --format as given; checked with the global -o when the run resolves it. */
  readonly format?: string;
  /** --output-file (the global --output FILE says the same). */
  readonly outputFile?: string;
  /** --compression of Parquet pages (absent: gzip); refused with another format by the run. */
  readonly compression?: ParquetCompression;
  readonly pageSize: number;
  /** --concurrency; absent means 1. */
  readonly concurrency?: number;
  /** --shard K/N as typed; checked when the run resolves it. */
  readonly shard?: string;
  readonly resume: boolean;
  readonly manifest: boolean;
  readonly serverSide: boolean;
  readonly progress: boolean;
  readonly quiet: boolean;
}

/** What --compression takes (shell completion offers these too). */
export const parquetCompressions = ['gzip', 'none'] as const;
export type ParquetCompression = (typeof parquetCompressions)[number];

function compressionOf(text: string | undefined): ParquetCompression | undefined {
  if (text === undefined) return undefined;
  const v = text.trim().toLowerCase();
  const found = parquetCompressions.find((c) => c === v);
  if (found) return found;
  throw new UsageError(`--compression takes ${parquetCompressions.join(' or ')}, not '${shown(text, 40)}'`);
}

/** Flags → ExportOptions; what depends on the global -o (format, file) is settled by the run. */
export function toExportOptions(family: ResourceFamily, flags: Readonly<Record<string, unknown>>): ExportOptions {
  const fields = str(flags, 'fields');
  const format = str(flags, 'format');
  const outputFile = str(flags, 'outputFile');
  const pageSize = str(flags, 'pageSize');
  const concurrency = str(flags, 'concurrency');
  const shard = str(flags, 'shard');
  const compression = compressionOf(str(flags, 'compression'));
  return {
    ...toFilterOptions(flags),
    family,
    ...(fields !== undefined ? { fields } : {}),
    ...(fields ? { selected: parseFields(family, fields, findFamily) } : {}),
    ...(format !== undefined ? { format } : {}),
    ...(outputFile !== undefined ? { outputFile } : {}),
    ...(compression !== undefined ? { compression } : {}),
    pageSize: pageSize ? parseCount('--page-size', pageSize, 1, 10000) : 1000,
    ...(concurrency ? { concurrency: parseCount('--concurrency', concurrency, 1, 32) } : {}),
    ...(shard !== undefined ? { shard } : {}),
    resume: bool(flags, 'resume'),
    manifest: bool(flags, 'manifest'),
    serverSide: bool(flags, 'serverSide'),
    progress: bool(flags, 'progress'),
    quiet: bool(flags, 'quiet'),
  };
}
