/**
 * The catalogue as the rest of svc sees it: generated facts with the
 * hand-written overrides applied, and lookups with did-you-mean suggestions.
 */
import { suggest } from '../util/suggest.js';
import { adminOnlyReads, defaultColumns, extraOperations, fieldNotes } from './overrides.js';
import { generatedFamilies } from './resources.gen.js';
import type { Family, FamilyHeader, FamilyText, Field, Operation } from './types.js';

export type * from './types.js';
export { COMPOSITE_TYPES, isComposite } from './types.js';
import { isComposite as isCompositeType } from './types.js';

/** A family with the overrides applied. */
export interface ResourceFamily extends Family {
  readonly defaultColumns: readonly string[];
  readonly fields: readonly ResourceField[];
}

/** A field with its hand-written note, when there is one. */
export interface ResourceField extends Field {
  readonly note?: string;
}

const ORDER: readonly Operation[] = ['list', 'get', 'exists', 'create', 'update', 'delete'];

/** The operations of a family with the hand-written extras, in the usual order. */
function operationsOf(f: FamilyHeader): Operation[] {
  const extra = extraOperations[f.name] ?? [];
  return ORDER.filter((o) => f.operations.includes(o) || extra.includes(o));
}

type Rest = Omit<ResourceFamily, keyof FamilyHeader>;
const LAZY: readonly (keyof Rest)[] = ['idType', 'permissions', 'dependsOn', 'getParams', 'writeParams', 'fields', 'rules', 'unique', 'defaultColumns'];

/** A family's other members from its JSON text, with the overrides applied. */
function restOf(g: FamilyText): Rest {
  const f = JSON.parse(g.text) as Omit<Family, keyof FamilyHeader>;
  const notes = fieldNotes[g.name] ?? {};
  const { read, write } = f.permissions;
  return {
    ...f,
    permissions: { read: adminOnlyReads.includes(g.name) ? { ...read, adminOnly: true } : read, write },
    defaultColumns: defaultColumns[g.name] ?? ['ID'],
    fields: f.fields.map((field) => {
      const note = notes[field.name];
      return note === undefined ? field : { ...field, note };
    }),
  };
}

const TEXT = Symbol('family text');
const REST = Symbol('family rest');
type LazyFamily = FamilyHeader & { [TEXT]: FamilyText; [REST]?: Rest };

/**
 * The getters of a family's other members, one set shared by all families
 * (every start makes all 64): each parses the family's text on first use.
 * They are ordinary enumerable properties to every reader (spread, JSON,
 * Object.keys); the text and the parsed members sit under symbols.
 */
const lazyMembers: PropertyDescriptorMap = Object.fromEntries(
  LAZY.map((key) => [
    key,
    {
      enumerable: true,
      get(this: LazyFamily) {
        return (this[REST] ??= restOf(this[TEXT]))[key];
      },
    },
  ]),
);

/** A family whose header is there at once and whose other members are parsed from its text on first use. */
function lazyFamily(g: FamilyText): ResourceFamily {
  const family = { name: g.name, title: g.title, access: g.access, operations: operationsOf(g), [TEXT]: g, [REST]: undefined };
  return Object.defineProperties(family, lazyMembers) as unknown as ResourceFamily;
}

/** Every family, in the service's order. */
export const families: readonly ResourceFamily[] = generatedFamilies.map(lazyFamily);

const byName = new Map(families.map((f) => [f.name, f]));

/** The family with this exact name, or undefined. */
export function findFamily(name: string): ResourceFamily | undefined {
  return byName.get(name);
}

/** The closest family names to a misspelt one, best first. */
export function suggestFamily(name: string): string[] {
  return suggest(name, [...byName.keys()]);
}

/** The field with this exact name on a family, or undefined. */
/** The fields a request may expand on this family (`expand`): its composite and bin file fields. */
export function expandableFields(family: ResourceFamily): ResourceField[] {
  return family.fields.filter((f) => isCompositeType(f.type) || f.type === 'binfile');
}

/** A type or family name with its article, for messages: "a string", "an items", "an int32", "an accounts", "a users". */
export function aOrAn(word: string): string {
  // A leading u is mostly said "you" (users, unit): "a".
  return `${/^[aeio]/i.test(word) ? 'an' : 'a'} ${word}`;
}

/**
 * Whether a field can be sorted (and filtered) on: the service sorts and filters stored scalar columns only, so
 * a composite (items, array, object …) or a computed field is refused. Undefined when it can; else why not.
 */
export function unorderable(field: ResourceField): string | undefined {
  if (isCompositeType(field.type)) return `is a composite (${field.type}) field`;
  if (!field.filterable) return 'is computed, not stored';
  return undefined;
}

export function findField(family: ResourceFamily, name: string): ResourceField | undefined {
  return family.fields.find((f) => f.name === name);
}

/** The closest field names of a family to a misspelt one, best first. */
export function suggestField(family: ResourceFamily, name: string): string[] {
  return suggest(
    name,
    family.fields.map((f) => f.name),
  );
}

/** Whether a family accepts any write operation. */
export function isWritable(family: Family): boolean {
  return family.operations.some((o) => o === 'create' || o === 'update' || o === 'delete');
}

/**
 * The stored value of an enum name (case-insensitive), e.g. CUSTOMER → 1 on
 * accounts.type; undefined when the field has no such name.
 */
export function enumValueOf(field: Field, name: string): number | string | undefined {
  const upper = name.toUpperCase();
  return field.enum?.find((e) => e.name !== undefined && e.name.toUpperCase() === upper)?.value;
}

/** The enum name of a stored value, when the field names it. */
export function enumNameOf(field: Field, value: unknown): string | undefined {
  return field.enum?.find((e) => e.value === value)?.name;
}
