import { UsageError } from '../errors.js';
import { shown } from '../util/shown.js';
import { didYouMean } from '../util/suggest.js';

export const outputFormats = ['table', 'json', 'ndjson', 'csv', 'tsv'] as const;
export type OutputFormat = (typeof outputFormats)[number];

/** The `-o` value, or the default: a table on a terminal, JSON in a pipe. */
export function resolveFormat(requested: string | undefined, isTTY: boolean): OutputFormat {
  if (requested === undefined) return isTTY ? 'table' : 'json';
  const found = outputFormats.find((f) => f === requested);
  if (!found) {
    // Parquet is a file an export writes, not a way to show output.
    const parquet = requested.toLowerCase() === 'parquet' ? "; for a Parquet file: svc <family> export --format parquet --output FILE.parquet" : '';
    // A plain word that is no format's near miss may be a file export was meant to write (`--output accounts`).
    const near = didYouMean(requested, outputFormats);
    const named = shown(requested, 80);
    const file = near || parquet || named !== requested ? '' : `; for export, a file of that name: --output-file ${requested}`;
    throw new UsageError(`unknown output format '${named}'${near} (choose ${outputFormats.join(', ')}${file})${parquet}`);
  }
  return found;
}

/** Colour only on a terminal, never with NO_COLOR or --no-color, never on a dumb terminal. */
export function useColor(isTTY: boolean, env: Readonly<Record<string, string | undefined>>, flag: boolean): boolean {
  if (!flag || !isTTY) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  return env.TERM !== 'dumb';
}

/** The formats `--jq` works on (json, ndjson); a UsageError naming them for any other. */
export function checkJqFormat(format: OutputFormat): void {
  if (format !== 'json' && format !== 'ndjson') {
    throw new UsageError(`--jq filters JSON output: use -o json or -o ndjson, not -o ${format}`);
  }
}
