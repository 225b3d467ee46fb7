/**
 * Every hand-written command of svc, as data (one folder each under
 * src/commands/). The record families' verbs come from records/verbs.ts.
 */
import type { AnySpec } from '../cli/command.js';

export const commands: readonly AnySpec[] = [];
