/** How `svc <family> query` shows records: the default columns on a terminal, every selected field as data. */
import type { ResourceFamily } from '../../../catalogue/index.js';
import type { OutputSettings } from '../../../cli/context.js';
import type { Selected } from '../../../records/query-body.js';
import { allFields, dataColumns, defaultSelection, tableColumns } from '../../../records/columns.js';
import type { Row, View } from '../../../output/view.js';

export function recordsView(family: ResourceFamily, output: OutputSettings, selected: readonly Selected[] | undefined, rows: AsyncIterable<Row> | Row[], tz?: string): View {
  if (output.format === 'table') return { kind: 'records', columns: tableColumns(family, selected ?? defaultSelection(family), tz), rows };
  return { kind: 'records', columns: dataColumns(selected ?? allFields(family)), rows };
}

/**
 * The notice on stderr when a page held fewer records than match, so nothing is cut off silently; with
 * the --limit the person chose, it names only the way to get every one.
 */
export function truncationNotice(family: ResourceFamily, shown: number, count: unknown, offset: number, limit?: number): string | undefined {
  // An answer without a number says nothing about what was left out.
  if (typeof count !== 'number' || !(count > offset + shown)) return undefined;
  const how = limit === undefined ? 'use --all for every one, or --limit N' : `--limit ${limit}; --all for every one`;
  return `svc: showing ${shown.toLocaleString('en-US')} of ${count.toLocaleString('en-US')} ${family.name} (${how})\n`;
}
