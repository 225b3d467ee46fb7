/** `svc <family> sum FIELD [--by FIELD]`'s typed options and how its arguments and flags become them, the fields checked against the catalogue. */
import { aOrAn, findField, type ResourceFamily, type ResourceField } from '../../../catalogue/index.js';
import { str } from '../../../cli/command.js';
import { UsageError } from '../../../errors.js';
import { parseCount } from '../../../records/query-body.js';
import { shown } from '../../../util/shown.js';
import { didYouMean } from '../../../util/suggest.js';
import { toFilterOptions, type FilterOptions } from '../filter-flags.js';

export interface SumOptions extends FilterOptions {
  readonly family: ResourceFamily;
  /** The numeric field to total. */
  readonly field: ResourceField;
  /** --by: one total per value of this field. */
  readonly by?: ResourceField;
  readonly pageSize: number;
}

const SUMMABLE: ReadonlySet<string> = new Set(['int16', 'int32', 'int64', 'double']);
const GROUPABLE: ReadonlySet<string> = new Set([...SUMMABLE, 'string', 'flag']);

function ownField(family: ResourceFamily, name: string, role: string): ResourceField {
  const field = findField(family, name);
  if (field) return field;
  const names = family.fields.map((f) => f.name);
  throw new UsageError(`unknown ${role} field '${shown(name, 80)}' on ${family.name}${didYouMean(name, names)} (run 'svc describe ${family.name}')`);
}

/** The field to total: an own numeric field of the family, else a usage error naming it and its type. */
export function summableField(family: ResourceFamily, name: string): ResourceField {
  const field = ownField(family, name, 'sum');
  if (!SUMMABLE.has(field.type)) {
    throw new UsageError(`cannot sum '${field.name}' on ${family.name}: it is ${aOrAn(field.type)} field (sum takes int16, int32, int64 or double fields)`);
  }
  return field;
}

/** The field to group by: an own scalar field (number, text or flag), else a usage error. */
export function groupField(family: ResourceFamily, name: string): ResourceField {
  const field = ownField(family, name, '--by');
  if (!GROUPABLE.has(field.type)) {
    throw new UsageError(`cannot group by '${field.name}' on ${family.name}: it is ${aOrAn(field.type)} field (--by takes a number, text or flag field)`);
  }
  return field;
}

/** Flags → SumOptions, the fields checked against the catalogue. */
export function toSumOptions(family: ResourceFamily, name: string, flags: Readonly<Record<string, unknown>>): SumOptions {
  const field = summableField(family, name);
  const by = str(flags, 'by');
  const pageSize = str(flags, 'pageSize');
  return {
    ...toFilterOptions(flags),
    family,
    field,
    ...(by !== undefined ? { by: groupField(family, by) } : {}),
    pageSize: pageSize ? parseCount('--page-size', pageSize, 1, 10000) : 1000,
  };
}
