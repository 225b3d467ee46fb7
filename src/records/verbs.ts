/**
 * The verbs of `svc <family> <verb>` as plain data: each verb's name and the
 * service operation a family must have for it, in the order help lists them.
 * The one list of verbs: src/commands/records/verbs.ts gives each its spec by
 * name, and the views (`svc describe`, `svc resources`) read it here without
 * loading any command.
 */
import type { Operation } from '../catalogue/index.js';

/** Every verb in help order, with the operation it needs; describe needs none (every family has it). */
export const verbTable = [
  { verb: 'query', operation: 'list' },
  { verb: 'count', operation: 'list' },
  { verb: 'sum', operation: 'list' },
  { verb: 'export', operation: 'list' },
  { verb: 'get', operation: 'get' },
  { verb: 'exists', operation: 'exists' },
  { verb: 'describe' },
  { verb: 'create', operation: 'create' },
  { verb: 'update', operation: 'update' },
  { verb: 'delete', operation: 'delete' },
  // Creates and updates; every family that can be created can be updated too.
  { verb: 'import', operation: 'create' },
] as const satisfies readonly { readonly verb: string; readonly operation?: Operation }[];

type VerbRow = (typeof verbTable)[number];

/** The name of a verb of the record families. */
export type VerbName = VerbRow['verb'];

/** A verb that uses a service operation. */
export interface ServiceVerb {
  readonly verb: VerbName;
  readonly operation: Operation;
}

/** The verbs that use a service operation (all but describe), in help order. */
export const serviceVerbs: readonly ServiceVerb[] = verbTable.filter((v): v is Extract<VerbRow, ServiceVerb> => 'operation' in v);

/** The service verbs a family's operations allow, in help order (what `svc resources` and `svc describe` list). */
export function verbsOf(operations: readonly Operation[]): string[] {
  return serviceVerbs.filter((v) => operations.includes(v.operation)).map((v) => v.verb);
}
