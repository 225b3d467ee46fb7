/**
 * The verbs of `svc <family> <verb>`, in the order help lists them: one folder
 * each (src/commands/records/<verb>/), one spec per family that allows it. The
 * names, their order and the service operation each needs are the one table
 * of src/records/verbs.ts; this module gives each its command.
 */
import type { ResourceFamily } from '../../catalogue/index.js';
import { familyAllows, verbTable, type VerbName } from '../../records/verbs.js';
import { countVerb } from './count/command.js';
import { createVerb } from './create/command.js';
import { deleteVerb } from './delete/command.js';
import { describeVerb } from './describe/command.js';
import { existsVerb } from './exists/command.js';
import { exportVerb } from './export/command.js';
import { getVerb } from './get/command.js';
import { importVerb } from './import/command.js';
import { queryVerb } from './query/command.js';
import { refusingEmptyValues } from './option-values.js';
import type { RecordVerb, VerbCommand } from './record-verb.js';
import { sumVerb } from './sum/command.js';
import { syncVerb } from './sync/command.js';
import { updateVerb } from './update/command.js';
import { watchVerb } from './watch/command.js';

/** Each verb's command under its name: the compiler checks there is one per verb of the table, and no other. */
const commands: { readonly [N in VerbName]: VerbCommand<N> } = {
  query: queryVerb,
  count: countVerb,
  sum: sumVerb,
  export: exportVerb,
  watch: watchVerb,
  sync: syncVerb,
  get: getVerb,
  exists: existsVerb,
  describe: describeVerb,
  create: createVerb,
  update: updateVerb,
  delete: deleteVerb,
  import: importVerb,
};

/** Every verb in help order, with its command and the operation (and field) the table gives it. */
export const recordVerbs: readonly RecordVerb[] = verbTable.map((v): RecordVerb => {
  const command = checked(commands[v.verb]);
  return 'operation' in v ? { ...command, operation: v.operation, ...('field' in v ? { field: v.field } : {}) } : command;
});

/** The verb's command with its option values checked as they are read (option-values.ts: no empty value). */
function checked(command: VerbCommand): VerbCommand {
  return { name: command.name, spec: (family) => refusingEmptyValues(command.spec(family)) };
}

/** True when the family allows the verb (src/records/verbs.ts familyAllows). */
export function allows(verb: RecordVerb, family: ResourceFamily): boolean {
  return familyAllows(verb, family);
}
