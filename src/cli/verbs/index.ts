/**
 * The verbs of `svc <family> <verb>`, in the order help lists them. Each verb
 * is one small spec (src/cli/verbs/<verb>.ts); the factory in
 * resource-command.ts adds it to every family that allows it.
 */
import type { VerbSpec } from "../legacy-verb.js";
import { describeVerb } from './describe.js';
import { existsVerb, getVerb } from './get.js';
import { sumVerb } from './sum.js';
import { exportVerb } from './export.js';
import { createVerb } from './create.js';
import { updateVerb } from './update.js';
import { deleteVerb } from './delete.js';

export const verbSpecs: readonly VerbSpec[] = [sumVerb, exportVerb, getVerb, existsVerb, describeVerb, createVerb, updateVerb, deleteVerb];
