/**
 * Field paths against the catalogue: a field of the family (`lastname`), a
 * first-degree path through a foreign key (`contact.city`) or an extension
 * field (`extdata.<name>`, any name, no declared type). Unknown names get a
 * did-you-mean; composite and computed fields cannot be filtered.
 */
import { findFamily, isComposite, suggestField, type ResourceFamily, type ResourceField } from '../catalogue/index.js';
import type { PathNode } from './ast.js';
import { clip, fail, ok, type Result } from './errors.js';

const EXTDATA = 'extdata';

/** A path made usable: its spelling for the service and its field (undefined for extension fields). */
export interface Target {
  readonly path: string;
  readonly field: ResourceField | undefined;
}

/** Resolves a path on `family`, or explains why it cannot be filtered. */
export function resolvePath(family: ResourceFamily, node: PathNode): Result<Target> {
  const dot = node.text.indexOf('.');
  const head = dot < 0 ? node.text : node.text.slice(0, dot);
  const rest = dot < 0 ? undefined : node.text.slice(dot + 1);
  if (head.toLowerCase() === EXTDATA && rest !== undefined) {
    if (rest === '') return fail(`'${clip(node.text)}' names no extension field; write extdata.<name>`, node.start, node.end);
    return ok({ path: `${EXTDATA}.${rest}`, field: undefined });
  }
  const headField = lookup(family, head);
  if (!headField) return unknown(family, family, head, node.start, node.start + head.length, node.text);
  if (rest === undefined) return usable(family, headField, headField.name, node);
  return relatedPath(family, headField, rest, node);
}

function relatedPath(family: ResourceFamily, refField: ResourceField, rest: string, node: PathNode): Result<Target> {
  const restStart = node.start + refField.name.length + 1;
  const target = refField.ref?.isFamily ? findFamily(refField.ref.family) : undefined;
  if (!target) {
    return fail(`'${refField.name}' on ${family.name} refers to no other family, so '${clip(node.text)}' cannot follow it`, node.start, restStart - 1);
  }
  if (rest.includes('.')) {
    return fail(`'${clip(node.text)}' goes deeper than one related record; only field.field paths are allowed`, node.start, node.end);
  }
  const field = lookup(target, rest);
  if (!field) return unknown(family, target, rest, restStart, node.end, node.text);
  return usable(family, field, `${refField.name}.${field.name}`, node);
}

function usable(family: ResourceFamily, field: ResourceField, path: string, node: PathNode): Result<Target> {
  if (isComposite(field.type)) {
    return fail(`field '${path}' on ${family.name} is a composite (${field.type}) field and cannot be filtered`, node.start, node.end);
  }
  if (!field.filterable) return fail(`field '${path}' on ${family.name} is computed, not stored, and cannot be filtered`, node.start, node.end);
  return ok({ path, field });
}

/** The field of this name: exact, else the one field whose name differs only in case. */
function lookup(family: ResourceFamily, name: string): ResourceField | undefined {
  const exact = family.fields.find((f) => f.name === name);
  if (exact) return exact;
  const folded = family.fields.filter((f) => f.name.toLowerCase() === name.toLowerCase());
  return folded.length === 1 ? folded[0] : undefined;
}

function unknown(family: ResourceFamily, owner: ResourceFamily, name: string, start: number, end: number, path: string): Result<Target> {
  const hint = suggestField(owner, name)[0];
  const where = owner === family ? `on ${family.name}` : `on ${owner.name} (in '${clip(path)}')`;
  const mean = hint === undefined ? '' : `; did you mean '${hint}'?`;
  const extra = hint === undefined && owner === family ? `; see: svc describe ${family.name}` : '';
  return fail(`unknown field '${clip(name)}' ${where}${mean}${extra}`, start, end);
}
