/**
 * The verbs of `svc <family> <verb>` as plain data: each verb's name and the
 * service operation a family must have for it, in the order help lists them.
 * The one list of verbs: src/commands/records/verbs.ts gives each its spec by
 * name, and the views (`svc describe`, `svc resources`) read it here without
 * loading any command.
 */
import type { Operation, ResourceFamily } from '../catalogue/index.js';

/**
 * Every verb in help order, with the operation it needs (describe needs none: every family has it) and the
 * field it needs, where it needs one: watch and sync follow `lastmodified`, which binfiles lacks.
 */
export const verbTable = [
  { verb: 'query', operation: 'list' },
  { verb: 'count', operation: 'list' },
  { verb: 'sum', operation: 'list' },
  { verb: 'export', operation: 'list' },
  { verb: 'watch', operation: 'list', field: 'lastmodified' },
  { verb: 'sync', operation: 'list', field: 'lastmodified' },
  { verb: 'get', operation: 'get' },
  { verb: 'exists', operation: 'exists' },
  { verb: 'describe' },
  { verb: 'create', operation: 'create' },
  { verb: 'update', operation: 'update' },
  { verb: 'delete', operation: 'delete' },
  // Creates and updates; every family that can be created can be updated too.
  { verb: 'import', operation: 'create' },
] as const satisfies readonly { readonly verb: string; readonly operation?: Operation; readonly field?: string }[];

type VerbRow = (typeof verbTable)[number];

/** The name of a verb of the record families. */
export type VerbName = VerbRow['verb'];

/** A verb that uses a service operation. */
export interface ServiceVerb {
  readonly verb: VerbName;
  readonly operation: Operation;
  /** A field the family must have. */
  readonly field?: string;
}

/** The verbs that use a service operation (all but describe), in help order. */
export const serviceVerbs: readonly ServiceVerb[] = verbTable.filter((v): v is Extract<VerbRow, ServiceVerb> => 'operation' in v);

/** True when a family has what a verb needs: its operation, and its field when it names one. */
export function familyAllows(v: { readonly operation?: Operation; readonly field?: string }, family: Pick<ResourceFamily, 'operations' | 'fields'>): boolean {
  return (v.operation === undefined || family.operations.includes(v.operation)) && (v.field === undefined || family.fields.some((f) => f.name === v.field));
}

/** The service verbs a family allows, in help order (what `svc resources` and `svc describe` list). */
export function verbsOf(family: Pick<ResourceFamily, 'operations' | 'fields'>): string[] {
  return serviceVerbs.filter((v) => familyAllows(v, family)).map((v) => v.verb);
}
