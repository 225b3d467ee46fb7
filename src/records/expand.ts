/** `--expand NAME,…` checked against the catalogue before anything is sent (the service answers an unknown name with an opaque 400). */
import { expandableFields, type ResourceFamily } from '../catalogue/index.js';
import { UsageError } from '../errors.js';
import { shown } from '../util/shown.js';
import { didYouMean } from '../util/suggest.js';

/** The names of an --expand list, each one a field of the family that expands; a UsageError names the first that is not. */
export function parseExpand(family: ResourceFamily, list: string): string[] {
  const names = list.split(',').map((e) => e.trim()).filter(Boolean);
  const allowed = expandableFields(family).map((f) => f.name);
  for (const name of names) {
    if (allowed.includes(name)) continue;
    const named = shown(name, 80);
    if (allowed.length === 0) throw new UsageError(`cannot expand '${named}' on ${family.name}: it has no field that expands (see 'svc describe ${family.name}')`);
    throw new UsageError(`cannot expand '${named}' on ${family.name}${didYouMean(name, allowed)} (fields that expand: ${allowed.join(', ')})`);
  }
  return names;
}
