/** `--expand NAME,…` checked against the catalogue before anything is sent (the service answers an unknown name with an opaque 400). */
import { expandableFields, type ResourceFamily } from '../catalogue/index.js';
import { UsageError } from '../errors.js';
import { shown } from '../util/shown.js';
import { didYouMean } from '../util/suggest.js';

/** --expand's help on a family: an example from its own fields that expand, or that it has none. */
export function expandHelp(family: ResourceFamily): string {
  const allowed = expandableFields(family).map((f) => f.name);
  if (allowed.length === 0) return `expand composite and bin file fields (${family.name} has none)`;
  const more = allowed.length > 3 ? ', …' : '';
  return `expand composite and bin file fields, e.g. ${allowed[0]} (${family.name}: ${allowed.slice(0, 3).join(', ')}${more})`;
}

/** The names of an --expand list, each one a field of the family that expands; a UsageError names the first that is not. */
export function parseExpand(family: ResourceFamily, list: string): string[] {
  const parts = list.split(',').map((e) => e.trim());
  const allowed = expandableFields(family).map((f) => f.name);
  if (parts.every((p) => p === '')) {
    throw new UsageError(
      allowed.length
        ? `--expand needs at least one field, e.g. --expand ${allowed[0]} (fields that expand on ${family.name}: ${allowed.join(', ')})`
        : `--expand needs at least one field, and ${family.name} has none that expands: leave --expand out`,
    );
  }
  const names = parts.filter(Boolean);
  for (const name of names) {
    if (allowed.includes(name)) continue;
    const named = shown(name, 80);
    if (allowed.length === 0) throw new UsageError(`cannot expand '${named}' on ${family.name}: it has no field that expands (see 'svc describe ${family.name}')`);
    throw new UsageError(`cannot expand '${named}' on ${family.name}${didYouMean(name, allowed)} (fields that expand: ${allowed.join(', ')})`);
  }
  return names;
}
