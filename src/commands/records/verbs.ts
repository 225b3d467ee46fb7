/**
 * The verbs of `svc <family> <verb>`, in the order help lists them: one folder
 * each (src/commands/records/<verb>/), one spec per family that allows it. The
 * one list of verbs and the service operation each needs.
 */
import type { Operation, ResourceFamily } from '../../catalogue/index.js';
import type { CommandSpec } from '../../cli/command.js';
import { countVerb } from './count/command.js';
import { queryVerb } from './query/command.js';

/** One verb of the record families. */
export interface RecordVerb {
  readonly name: string;
  /** The service operation the verb needs (a family gets the verb when it has it); none: every family. */
  readonly operation?: Operation;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  spec(family: ResourceFamily): CommandSpec<any>;
}

export const recordVerbs: readonly RecordVerb[] = [queryVerb, countVerb];

/** True when the family allows the verb. */
export function allows(verb: RecordVerb, family: ResourceFamily): boolean {
  return verb.operation === undefined || family.operations.includes(verb.operation);
}
