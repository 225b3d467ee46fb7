/**
 * The verbs of `svc <family> <verb>`, in the order help lists them. Each verb
 * is one small spec (src/cli/verbs/<verb>.ts); the factory in
 * resource-command.ts adds it to every family that allows it.
 */
import type { VerbSpec } from '../resource-command.js';
import { describeVerb } from './describe.js';

export const verbSpecs: readonly VerbSpec[] = [describeVerb];
