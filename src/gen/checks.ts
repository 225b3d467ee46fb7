import type { Rule, TextRule } from '../catalogue/types.js';
import type { DbConstraint } from './spec-types.js';

/** Facts one column-level (domain) check constraint contributes to a field. */
export interface DomainFacts {
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  text?: TextRule;
  pattern?: string;
  values?: string[];
  jsonKind?: string[];
}

const NUM = String.raw`(-?\d+(?:\.\d+)?)(?:::[a-z ]+)*`;
const IDENT = String.raw`"?([A-Za-z_][A-Za-z0-9_]*)"?(?:::[a-z_]+)*`;

/** Unquotes a SQL string literal body (doubled quotes). */
function sqlString(body: string): string {
  return body.replace(/''/g, "'");
}

/** Pulls the text rule out of a "no blanks at the ends / no line breaks" check. */
function parseTextRule(def: string): TextRule | undefined {
  const m = /VALUE !~ '(.*)'::text/.exec(def);
  if (!m) return undefined;
  const rx = m[1] ?? '';
  // A rule that forbids \r\n anywhere (an alternative of its own) means single-line.
  if (/\|\[\\r\\n\]/.test(rx)) return 'single-line';
  return 'trimmed';
}

/** Parses one domain check (the constraint on a single column's values). */
export function parseDomainCheck(def: string): DomainFacts {
  const facts: DomainFacts = {};
  const range = new RegExp(String.raw`VALUE >= ${NUM} AND VALUE <= ${NUM}`).exec(def);
  if (range) {
    facts.minimum = Number(range[1]);
    facts.maximum = Number(range[2]);
    return facts;
  }
  const min = new RegExp(String.raw`^CHECK \(VALUE >= ${NUM}\)$`).exec(def);
  if (min) facts.minimum = Number(min[1]);
  const gt = new RegExp(String.raw`^CHECK \(VALUE > ${NUM}\)$`).exec(def);
  if (gt) facts.exclusiveMinimum = Number(gt[1]);
  if (def.includes('VALUE !~')) {
    const rule = parseTextRule(def);
    if (rule) facts.text = rule;
  }
  const pat = /VALUE(?:::text)? ~ '(.*)'::text\)$/.exec(def);
  if (pat && !def.includes('!~')) facts.pattern = sqlString(pat[1] ?? '');
  const any = /^CHECK \(VALUE = ANY \(ARRAY\[(.*)\]\)\)$/.exec(def);
  if (any) facts.values = [...(any[1] ?? '').matchAll(/'((?:[^']|'')*)'::text/g)].map((x) => sqlString(x[1] ?? ''));
  const json = /json_typeof\(VALUE\) = (?:ANY \(ARRAY\[(.*)\]\)|'(\w+)'::text)/.exec(def);
  if (json) {
    facts.jsonKind = json[2] ? [json[2]] : [...(json[1] ?? '').matchAll(/'(\w+)'/g)].map((x) => x[1] ?? '');
  }
  return facts;
}

/** Finds the column a domain constraint belongs to (`dc_<table>_<field>`). */
export function domainField(c: DbConstraint, fieldNames: readonly string[]): string | undefined {
  const lower = c.name.toLowerCase();
  const matches = fieldNames.filter((f) => lower.endsWith(`_${f.toLowerCase()}`));
  // The longest suffix wins: `dc_x_datefrom` must not match a field named `from`.
  return matches.sort((a, b) => b.length - a.length)[0];
}

function list(s: string): string[] {
  return s.split(',').map((x) => x.trim().replace(/"/g, ''));
}

/** Parses a table-level check into structured rules; unknown shapes are kept as SQL. */
export function parseTableCheck(def: string): Rule[] {
  const body = def.replace(/^CHECK \(/, '').replace(/\)$/, '').trim();
  let m = new RegExp(String.raw`^${IDENT} IS NULL OR ${IDENT} IS NULL$`).exec(body);
  if (m) return [{ kind: 'at-most-one', fields: [m[1] ?? '', m[2] ?? ''] }];
  m = /^num_nonnulls\(([^)]*)\) <= 1$/.exec(body);
  if (m) return [{ kind: 'at-most-one', fields: list(m[1] ?? '') }];
  m = /^num_nonnulls\(([^)]*)\) = 1$/.exec(body);
  if (m) return [{ kind: 'exactly-one', fields: list(m[1] ?? '') }];
  m = new RegExp(String.raw`^${IDENT} <= ${IDENT}$`).exec(body);
  if (m) return [{ kind: 'ordered', lower: m[1] ?? '', upper: m[2] ?? '' }];
  m = new RegExp(String.raw`^${IDENT} IS DISTINCT FROM ${IDENT}$`).exec(body);
  if (m) return [{ kind: 'different', fields: [m[1] ?? '', m[2] ?? ''] }];
  m = new RegExp(String.raw`^${IDENT} <> ''::text OR ${IDENT} <> ''::text$`).exec(body);
  if (m) return [{ kind: 'one-not-empty', fields: [m[1] ?? '', m[2] ?? ''] }];
  const onlyFor = [
    ...body.matchAll(
      new RegExp(String.raw`${IDENT} = ''::text OR \(${IDENT} = ANY \(ARRAY\[([\d, ]+)\]\)\)`, 'g'),
    ),
  ];
  if (onlyFor.length > 0) {
    return onlyFor.map((x) => ({
      kind: 'only-for' as const,
      field: x[1] ?? '',
      when: x[2] ?? '',
      values: (x[3] ?? '').split(',').map((v) => Number(v.trim())),
    }));
  }
  return [{ kind: 'check', sql: body }];
}

/** Column lists of the unique constraints (primary keys excluded). */
export function parseUnique(def: string): string[] | undefined {
  const m = /^UNIQUE (?:NULLS NOT DISTINCT )?\(([^)]*)\)/.exec(def);
  return m ? list(m[1] ?? '') : undefined;
}
