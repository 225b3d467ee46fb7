/**
 * The slices of the vendor's OpenAPI document and database catalogue that the
 * catalogue generator reads. Everything else in those documents is ignored.
 */

export interface ApiSchema {
  type?: string;
  format?: string;
  nullable?: boolean;
  default?: unknown;
  description?: string;
  enum?: unknown[];
  pattern?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean | number;
  exclusiveMaximum?: boolean | number;
  minLength?: number;
  maxLength?: number;
  items?: ApiSchema;
  properties?: Record<string, ApiSchema>;
  oneOf?: ApiSchema[];
  allOf?: ApiSchema[];
  $ref?: string;
}

export interface ApiParameter {
  $ref?: string;
  name?: string;
}

export interface ApiOperation {
  description?: string;
  operationId?: string;
  parameters?: ApiParameter[];
  requestBody?: ApiRequestBody;
}

/** A request body, or a reference to one under components.requestBodies. */
export interface ApiRequestBody {
  $ref?: string;
  content?: Record<string, { schema?: ApiSchema }>;
}

export interface ApiDocument {
  tags: { name: string; description?: string }[];
  paths: Record<string, Record<string, ApiOperation>>;
  components: { schemas: Record<string, ApiSchema>; requestBodies?: Record<string, ApiRequestBody> };
}

export interface DbField {
  name: string;
  type: string;
  notnull: boolean;
  identity: boolean;
  generated: boolean;
  default: string | null;
  indexed: boolean;
  fkeys: { name: string; table: string; field: string }[];
  pattern: string | null;
}

export interface DbConstraint {
  name: string;
  type: string;
  domain: boolean;
  def: string;
}

export interface DbTable {
  name: string;
  type: string;
  fields: DbField[];
  constraints: DbConstraint[];
}

export type DbDocument = DbTable[];
