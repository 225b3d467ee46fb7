/** Short human labels for catalogue facts, shared by `resources` and `describe`. */
import type { Dependency, PermissionRule, ResourceField, Rule } from '../catalogue/index.js';

/** "accounts", "writable accounts", "billing|procurement", "none", "creator only". */
export function permissionLabel(rule: PermissionRule | null): string {
  if (rule === null) return '-';
  if (rule.anyOf.length === 0) return rule.creatorOnly ? 'creator only' : 'none';
  const names = rule.anyOf.join('|');
  const base = rule.writable ? `writable ${names}` : names;
  return rule.creatorOnly ? `${base} + creator only` : base;
}

/** "account (accounts)" or "record (records) | comment (comments)". */
export function dependencyLabel(deps: readonly Dependency[]): string {
  if (deps.length === 0) return '-';
  return deps.map((d) => (d.field === d.family ? d.family : `${d.field} (${d.family})`)).join(' | ');
}

/** One-line statement of a cross-field rule. */
export function ruleLabel(rule: Rule): string {
  switch (rule.kind) {
    case 'at-most-one':
      return `at most one of ${rule.fields.join(', ')}`;
    case 'exactly-one':
      return `exactly one of ${rule.fields.join(', ')}`;
    case 'ordered':
      return `${rule.lower} <= ${rule.upper}`;
    case 'different':
      return `${rule.fields.join(' and ')} differ`;
    case 'one-not-empty':
      return `${rule.fields.join(' or ')} not empty`;
    case 'only-for':
      return `${rule.field} only when ${rule.when} in (${rule.values.join(', ')})`;
    case 'check':
      return `check: ${rule.sql.replace(/\s+/g, ' ')}`;
  }
}

/** The default as svc shows it: JSON, or "now" for the current time. */
export function defaultLabel(field: ResourceField): string {
  if (field.defaultNow) return 'now';
  if (!('default' in field)) return '';
  return JSON.stringify(field.default);
}

/** "0 PROSPECT, 1 CUSTOMER" for enums; bounds, lengths, pattern and text rules otherwise. */
export function constraintLabel(field: ResourceField): string {
  const parts: string[] = [];
  if (field.enum) parts.push(field.enum.map((e) => (e.name ? `${e.value} ${e.name}` : JSON.stringify(e.value))).join(', '));
  const lo = field.minimum !== undefined ? `>= ${field.minimum}` : field.exclusiveMinimum !== undefined ? `> ${field.exclusiveMinimum}` : '';
  if (field.minimum !== undefined && field.maximum !== undefined) parts.push(`${field.minimum}..${field.maximum}`);
  else if (lo) parts.push(lo);
  else if (field.maximum !== undefined) parts.push(`<= ${field.maximum}`);
  if (field.minimum === undefined && field.exclusiveMinimum !== undefined && field.maximum !== undefined) parts.push(`> ${field.exclusiveMinimum}`);
  if (field.minLength !== undefined) parts.push(`length >= ${field.minLength}`);
  if (field.maxLength !== undefined) parts.push(`length <= ${field.maxLength}`);
  if (field.pattern) parts.push(`pattern ${field.pattern}`);
  if (field.format) parts.push(field.format);
  if (field.text) parts.push(field.text === 'single-line' ? 'one line, no outer blanks' : 'no outer blanks');
  if (field.timestamp) parts.push('unix seconds');
  if (field.jsonKind) parts.push(`json ${field.jsonKind.join('|')}`);
  return parts.join('; ');
}

/** "contacts" for a reference to a family's ID, "table.field" otherwise. */
export function refLabel(field: ResourceField): string {
  if (!field.ref) return '';
  return field.ref.field === 'ID' ? field.ref.family : `${field.ref.family}.${field.ref.field}`;
}

export function yes(v: boolean): string {
  return v ? 'yes' : '';
}
