import { describe, expect, it } from 'vitest';
import { parseDependencyFields, parsePermission, parseTag } from '../../src/gen/catalogue.js';
import { domainField, parseDomainCheck, parseTableCheck, parseUnique } from '../../src/gen/checks.js';
import { fieldType, parseDbDefault, parseEnum } from '../../src/gen/fields.js';

describe('spec parsers', () => {
  it('reads access markers from tag descriptions', () => {
    expect(parseTag('Users *(restricted read-only)*')).toEqual({ title: 'Users', access: 'restricted read-only' });
    expect(parseTag('Bin Files *(read-only)*')).toEqual({ title: 'Bin Files', access: 'read-only' });
    expect(parseTag('Accounts')).toEqual({ title: 'Accounts', access: 'read-write' });
  });

  it('reads every permission phrasing', () => {
    expect(parsePermission('Do it. Requires `accounts` permission.')).toEqual({ anyOf: ['accounts'], writable: false, creatorOnly: false });
    expect(parsePermission('Requires writable `inventory` or `pricelists` permission.')).toEqual({
      anyOf: ['inventory', 'pricelists'], writable: true, creatorOnly: false,
    });
    expect(parsePermission('Requires no specific permission.')).toEqual({ anyOf: [], writable: false, creatorOnly: false });
    expect(parsePermission('Requires the authenticated user to be the `creator`.')).toEqual({ anyOf: [], writable: false, creatorOnly: true });
    expect(parsePermission('Requires writable `messages` permission and the authenticated user to be the `creator`.')).toEqual({
      anyOf: ['messages'], writable: true, creatorOnly: true,
    });
  });

  it('reads parent dependencies', () => {
    expect(parseDependencyFields('Requires x. Has dependency on `record` or `comment`.')).toEqual(['record', 'comment']);
    expect(parseDependencyFields('Requires x.')).toEqual([]);
  });

  it('reads enum names from descriptions and keeps unnamed schema values', () => {
    expect(parseEnum({ enum: [0, 1, 2], description: 'Calc (`0`=NET, `1`=GROSS, `2`=EXACT, `3`=LEGACY)' }, {})).toEqual([
      { value: 0, name: 'NET' }, { value: 1, name: 'GROSS' }, { value: 2, name: 'EXACT' }, { value: 3, name: 'LEGACY' },
    ]);
    expect(parseEnum({ enum: ['a', 'b'] }, {})).toEqual([{ value: 'a' }, { value: 'b' }]);
    expect(parseEnum({ type: 'string' }, {})).toBeUndefined();
  });

  it('maps property shapes to field types', () => {
    expect(fieldType({ type: 'integer', enum: [0, 1] }, undefined)).toBe('flag');
    expect(fieldType({ type: 'integer', enum: [0, 1], description: '(`0`=A, `1`=B)' }, undefined)).toBe('int32');
    expect(fieldType({ type: 'integer' }, { type: 'smallint' } as never)).toBe('int16');
    expect(fieldType({ $ref: '#/components/schemas/binfile-field' }, undefined)).toBe('binfile');
    expect(fieldType({ oneOf: [{ type: 'string' }, { type: 'array' }] }, undefined)).toBe('array');
    expect(fieldType({ oneOf: [{ type: 'string' }, { type: 'object' }] }, undefined)).toBe('json');
    expect(() => fieldType({}, undefined)).toThrow(/unmapped/);
  });

  it('reads column defaults', () => {
    expect(parseDbDefault("''")).toEqual({ value: '' });
    expect(parseDbDefault("'application/octet-stream'::text")).toEqual({ value: 'application/octet-stream' });
    expect(parseDbDefault('0')).toEqual({ value: 0 });
    expect(parseDbDefault("date_part('epoch', now())")).toEqual({ now: true });
    expect(parseDbDefault(null)).toBeUndefined();
  });

  it('reads domain checks', () => {
    expect(parseDomainCheck('CHECK (VALUE >= 0 AND VALUE <= 5)')).toEqual({ minimum: 0, maximum: 5 });
    expect(parseDomainCheck('CHECK (VALUE > 0::double precision)')).toEqual({ exclusiveMinimum: 0 });
    expect(parseDomainCheck("CHECK (VALUE !~ '^[ \\t\\v]|[ \\t\\v]$|[\\r\\n]'::text)")).toEqual({ text: 'single-line' });
    expect(parseDomainCheck("CHECK (VALUE !~ '^[ \\t\\v\\r\\n]|[ \\t\\v\\r\\n]$'::text)")).toEqual({ text: 'trimmed' });
    expect(parseDomainCheck("CHECK (VALUE::text ~ '^[A-Z]{3}$'::text)")).toEqual({ pattern: '^[A-Z]{3}$' });
    expect(parseDomainCheck("CHECK (json_typeof(VALUE) = 'object'::text)")).toEqual({ jsonKind: ['object'] });
    expect(domainField({ name: 'dc_files_mimetype', type: 'check', domain: true, def: '' }, ['filename', 'mimetype'])).toBe('mimetype');
  });

  it('turns table checks into rules, keeping unknown ones as SQL', () => {
    expect(parseTableCheck('CHECK (owneruser IS NULL OR ownergroup IS NULL)')).toEqual([{ kind: 'at-most-one', fields: ['owneruser', 'ownergroup'] }]);
    expect(parseTableCheck('CHECK (num_nonnulls(record, comment) = 1)')).toEqual([{ kind: 'exactly-one', fields: ['record', 'comment'] }]);
    expect(parseTableCheck('CHECK (datefrom <= dateto)')).toEqual([{ kind: 'ordered', lower: 'datefrom', upper: 'dateto' }]);
    expect(parseTableCheck('CHECK ("ID" IS DISTINCT FROM reference)')).toEqual([{ kind: 'different', fields: ['ID', 'reference'] }]);
    expect(parseTableCheck('CHECK (status::smallint <> 5 OR probability::smallint = 100)')).toEqual([
      { kind: 'check', sql: 'status::smallint <> 5 OR probability::smallint = 100' },
    ]);
    expect(parseUnique('UNIQUE NULLS NOT DISTINCT (fork, entity, name)')).toEqual(['fork', 'entity', 'name']);
    expect(parseUnique('PRIMARY KEY ("ID")')).toBeUndefined();
  });
});
