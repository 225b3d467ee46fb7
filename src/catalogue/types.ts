/**
 * Types of the resource catalogue: the facts about every record family that the
 * generator derives from the vendor's OpenAPI document and database catalogue.
 * The data lives in `resources.gen.ts`; hand-written additions in `overrides.ts`.
 */

/** How a family may be used, as marked by the service. */
export type Access =
  | 'read-write'
  | 'read-only'
  | 'developer read-only'
  | 'restricted read-only'
  | 'admin read-only';

/** The service's operations on a family. `list` is the query POST on the collection. */
export type Operation = 'list' | 'create' | 'get' | 'exists' | 'update' | 'delete';

/**
 * What a request needs. `anyOf` empty means no specific permission; `writable`
 * means the writable form of each named permission; `creatorOnly` means the
 * authenticated user must be the record's creator; `adminOnly` means the user
 * must be an admin besides.
 */
export interface PermissionRule {
  readonly anyOf: readonly string[];
  readonly writable: boolean;
  readonly creatorOnly: boolean;
  /** Only admin users may do this, whatever permissions others hold (from the brief, via overrides). */
  readonly adminOnly?: boolean;
}

/**
 * A field's value type as the client sees it. Integers keep their width;
 * `flag` is an integer restricted to 0/1; `binfile` is a stored file (its ID,
 * or its content when expanded); `meta`, `items`, `json`, `array` and `object`
 * are composite fields (COMPOSITE_TYPES).
 */
export type FieldType =
  | 'int16'
  | 'int32'
  | 'int64'
  | 'double'
  | 'string'
  | 'flag'
  | 'binfile'
  | 'meta'
  | 'items'
  | 'json'
  | 'array'
  | 'object';

/**
 * The composite field types: structured (JSON) values, read as JSON text
 * unless expanded, never filtered or sorted on. The one list of them: the
 * generator, the filter language and the sandbox all ask isComposite.
 */
export const COMPOSITE_TYPES = ['meta', 'items', 'json', 'array', 'object'] as const satisfies readonly FieldType[];

export type CompositeType = (typeof COMPOSITE_TYPES)[number];

const compositeTypes: ReadonlySet<FieldType> = new Set(COMPOSITE_TYPES);

/** True for a composite field type (COMPOSITE_TYPES). */
export function isComposite(type: FieldType): type is CompositeType {
  return compositeTypes.has(type);
}

/** One allowed value of an enumerated field, with its symbolic name when the service gives one. */
export interface EnumValue {
  readonly value: number | string;
  readonly name?: string;
}

/** A field this one references through a foreign key. */
export interface FieldRef {
  /** The referenced family, or the table name when it is not one of the families. */
  readonly family: string;
  readonly field: string;
  /** False when the referenced table is internal (not one of the families). */
  readonly isFamily: boolean;
}

/** Text rules from the database's check constraints. */
export type TextRule = 'single-line' | 'trimmed';

export interface Field {
  readonly name: string;
  readonly type: FieldType;
  /** String formats: email, uri, password. */
  readonly format?: string;
  readonly nullable: boolean;
  /** The default as a JSON value; `'now'` for timestamps defaulting to the current time. */
  readonly default?: unknown;
  /** The default is computed by the service (current time, authenticated user, …). */
  readonly defaultNow?: boolean;
  readonly enum?: readonly EnumValue[];
  readonly pattern?: string;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly exclusiveMinimum?: number;
  readonly exclusiveMaximum?: number;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly text?: TextRule;
  /** JSON kind required of a json column (object, array). */
  readonly jsonKind?: readonly string[];
  readonly ref?: FieldRef;
  /** An int64 holding a Unix timestamp in seconds. */
  readonly timestamp: boolean;
  /** Whether a create or update may set it. */
  readonly writable: boolean;
  /** NOT NULL with no default: a create must give it. */
  readonly required: boolean;
  /** A stored scalar column that a filter or sort can use. */
  readonly filterable: boolean;
  readonly indexed: boolean;
  /** The field is stored in the database (false for computed API-only fields). */
  readonly stored: boolean;
}

/** A rule spanning several fields, from the database's table checks. */
export type Rule =
  | { readonly kind: 'at-most-one'; readonly fields: readonly string[] }
  | { readonly kind: 'exactly-one'; readonly fields: readonly string[] }
  | { readonly kind: 'ordered'; readonly lower: string; readonly upper: string }
  | { readonly kind: 'different'; readonly fields: readonly string[] }
  | { readonly kind: 'one-not-empty'; readonly fields: readonly string[] }
  | { readonly kind: 'only-for'; readonly field: string; readonly when: string; readonly values: readonly number[] }
  | { readonly kind: 'check'; readonly sql: string };

/** A parent family this one depends on, through one of its fields. */
export interface Dependency {
  readonly field: string;
  readonly family: string;
}

export interface Family {
  readonly name: string;
  readonly title: string;
  readonly idType: 'int32' | 'int64';
  readonly access: Access;
  readonly operations: readonly Operation[];
  readonly permissions: {
    readonly read: PermissionRule;
    readonly write: PermissionRule | null;
  };
  /** Parents; several mean "one of" (for example `record` or `comment`). */
  readonly dependsOn: readonly Dependency[];
  /** Query parameters the get operation accepts beyond the ID. */
  readonly getParams: readonly ('expand' | 'extdata' | 'tags')[];
  /**
   * Pseudo fields the create and update bodies accept: `extdata`, and `tags`
   * (with `+tags` / `-tags`). Empty for families that offer neither.
   */
  readonly writeParams: readonly ('extdata' | 'tags')[];
  readonly fields: readonly Field[];
  readonly rules: readonly Rule[];
  /** Sets of fields whose values are unique together. */
  readonly unique: readonly (readonly string[])[];
}

export interface Catalogue {
  readonly families: readonly Family[];
}

/** The parts of a family every start needs (command groups, help); the rest is parsed on first use. */
export type FamilyHeader = Pick<Family, 'name' | 'title' | 'access' | 'operations'>;

/** A family as the generated module holds it: its header as data, the rest as JSON text. */
export interface FamilyText extends FamilyHeader {
  /** JSON of the family's other members (Omit<Family, keyof FamilyHeader>). */
  readonly text: string;
}
