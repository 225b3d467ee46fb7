/**
 * One record as a view: as data the service's object unchanged; on a terminal
 * one field a row, enum values with their names and timestamps also as dates.
 */
import { enumNameOf, findField, type ResourceFamily } from '../catalogue/index.js';
import { toCell } from '../output/cells.js';
import type { ObjectView } from '../output/view.js';

function fieldText(family: ResourceFamily, name: string, value: unknown): string {
  const field = findField(family, name);
  if (!field || value === null || value === undefined) return toCell(value);
  const label = field.enum ? enumNameOf(field, value) : undefined;
  if (label !== undefined) return `${String(value)} ${label}`;
  if (field.timestamp && typeof value === 'number') {
    return `${value} (${new Date(value * 1000).toISOString().replace('.000Z', 'Z')})`;
  }
  return toCell(value);
}

/** A record returned by the service as an object view. */
export function recordView(family: ResourceFamily, record: Readonly<Record<string, unknown>>): ObjectView {
  return {
    kind: 'object',
    value: record,
    details: Object.entries(record).map(([name, value]) => [name, fieldText(family, name, value)] as const),
  };
}
