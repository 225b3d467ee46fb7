/**
 * Flags → options for the record verbs, without commander or a server: each
 * verb's spec for a family, its `toOptions` called with what the parser would
 * hand over, and its refusals caught as the UsageError they must be.
 */
import { expect } from 'vitest';
import { findFamily, type ResourceFamily } from '../../../src/catalogue/index.js';
import type { CommandInput } from '../../../src/cli/command.js';
import type { VerbCommand } from '../../../src/commands/records/record-verb.js';
import { ExitCode, UsageError } from '../../../src/errors.js';

export function family(name: string): ResourceFamily {
  const f = findFamily(name);
  if (!f) throw new Error(`no family ${name}`);
  return f;
}

/** The options a verb of a family makes of these arguments and flags. */
export function optionsOf<O>(verb: VerbCommand, familyName: string, input: Partial<CommandInput> = {}): O {
  return verb.spec(family(familyName)).toOptions({ args: [], flags: {}, ...input }) as O;
}

/** The message of the UsageError (exit 2) a verb's toOptions throws for these arguments and flags. */
export function refusal(verb: VerbCommand, familyName: string, input: Partial<CommandInput>): string {
  let thrown: unknown;
  try {
    optionsOf(verb, familyName, input);
  } catch (err) {
    thrown = err;
  }
  expect(thrown).toBeInstanceOf(UsageError);
  expect((thrown as UsageError).exitCode).toBe(ExitCode.usage);
  return (thrown as UsageError).message;
}

/** The filter options when none is given. */
export const NO_FILTER = { filter: [], filterJson: [], filterFiles: [], explain: false, printRequest: false } as const;
