/**
 * The Parquet columns of an export, from the catalogue's field types:
 *   - int16, int32, int64 (IDs, references, enums, timestamps in Unix
 *     seconds) → INT64;
 *   - double → DOUBLE: the service stores and sends these (prices, amounts,
 *     rates) as binary64 numbers, so DOUBLE holds exactly what it sends; a
 *     DECIMAL would need a scale the catalogue does not give, and would round;
 *   - flag (an integer restricted to 0/1) → BOOLEAN;
 *   - everything else (string, composite values as JSON text, bin file
 *     references, paths the catalogue does not know such as extdata.name) →
 *     UTF-8 text, written as the CSV cell would be.
 * A column is REQUIRED only for a field of the family itself that the
 * catalogue says is never null; a path through a reference may be null.
 */
import { fieldOfPath } from '../../records/columns.js';
import type { ResourceFamily } from '../../catalogue/index.js';
import type { Field } from '../../catalogue/index.js';
import type { ParquetColumn, ParquetKind } from '../plan.js';

function kindOf(field: Field | undefined): ParquetKind {
  switch (field?.type) {
    case 'int16':
    case 'int32':
    case 'int64':
      return 'int64';
    case 'double':
      return 'double';
    case 'flag':
      return 'boolean';
    default:
      return 'string';
  }
}

/** The Parquet columns of the selected fields (name = the column's name in the CSV header). */
export function parquetColumns(family: ResourceFamily, selected: readonly { readonly name: string; readonly path: string }[]): ParquetColumn[] {
  return selected.map((s) => {
    const field = fieldOfPath(family, s.path);
    const own = !s.path.includes('.');
    return { name: s.name, kind: kindOf(field), nullable: !(own && field && !field.nullable) };
  });
}
