/**
 * What a verb of the record families is: its name, the service operation it
 * needs, and its spec for a family. Apart from verbs.ts (which lists them), so
 * a verb's command.ts and the list do not import each other.
 */
import type { Operation, ResourceFamily } from '../../catalogue/index.js';
import type { CommandSpec } from '../../cli/command.js';
import type { VerbName } from '../../records/verbs.js';

/** What a verb's command.ts gives: its name and its spec for a family. */
export interface VerbCommand<N extends VerbName = VerbName> {
  readonly name: N;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  spec(family: ResourceFamily): CommandSpec<any>;
}

/** One verb of the record families: its command, and the operation src/records/verbs.ts says it needs. */
export interface RecordVerb extends VerbCommand {
  /** The service operation the verb needs (a family gets the verb when it has it); none: every family. */
  readonly operation?: Operation;
  /** A field the family must have for the verb (watch and sync: lastmodified). */
  readonly field?: string;
}
