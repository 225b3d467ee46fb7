/**
 * Single-record operations: create (PUT), get (GET), exists (HEAD), update
 * (PATCH) and delete (DELETE), with ETag / Last-Modified and the conditional
 * headers, pseudo fields, permission checks and the brief's statuses.
 */
import { createHash } from 'node:crypto';
import { findFamily, type ResourceFamily } from '../../catalogue/index.js';
import { nowSeconds, type RequestInfo, type SandboxContext, type Session } from '../context.js';
import { q } from '../db.js';
import { badRequest, conflict, HttpError, notFound } from '../errors.js';
import { empty, json, type Reply } from '../http/respond.js';
import { checkMessage, REV, table } from '../schema.js';
import { dropExtras, readExtdata, readTags, writeExtras } from './extras.js';
import { canSee } from './ownership.js';
import { checkRead, checkWrite } from './permissions.js';
import { expandable, toRecord } from './serialize.js';
import { parseWrite } from './values.js';

/** SQLite reports foreign-key failures as FOREIGNKEY, or TRIGGER for ON DELETE RESTRICT. */
function isForeignKeyError(err: unknown): boolean {
  return /FOREIGN KEY constraint failed/.test((err as Error).message ?? '');
}

type Row = Record<string, unknown> & { ID: number; _rev: number; lastmodified?: number; creator?: number | null };

function load(ctx: SandboxContext, family: ResourceFamily, id: number): Row | undefined {
  return ctx.db.prepare(`SELECT * FROM ${table(ctx.instance, family.name)} WHERE "ID" = ?`).get(id) as Row | undefined;
}

/** The row, or 404 when it does not exist or the caller may not see it (existence is not leaked). */
function mustLoad(ctx: SandboxContext, family: ResourceFamily, id: number, session?: Session): Row {
  const row = load(ctx, family, id);
  if (!row || (session && !canSee(session, family, row))) throw notFound(`Not Found: ${family.name} ${id} does not exist`);
  return row;
}

/** A strong entity tag that changes on every write. */
export function etagOf(family: ResourceFamily, row: Row): string {
  return `"${createHash('md5').update(`${family.name}/${row.ID}/${row[REV]}/${String(row.lastmodified ?? '')}`).digest('hex')}"`;
}

function lastModifiedOf(row: Row): number | undefined {
  return typeof row.lastmodified === 'number' ? row.lastmodified : undefined;
}

function validators(family: ResourceFamily, row: Row): Record<string, string> {
  const headers: Record<string, string> = { ETag: etagOf(family, row) };
  const lm = lastModifiedOf(row);
  if (lm !== undefined) headers['Last-Modified'] = new Date(lm * 1000).toUTCString();
  return headers;
}

function tagList(header: string | string[] | undefined): string[] | undefined {
  if (header === undefined) return undefined;
  return (Array.isArray(header) ? header.join(',') : header).split(',').map((t) => t.trim().replace(/^W\//, ''));
}

function httpDate(header: string | string[] | undefined): number | undefined {
  if (typeof header !== 'string') return undefined;
  const ms = Date.parse(header);
  return Number.isNaN(ms) ? undefined : Math.floor(ms / 1000);
}

/** 304 for a matching If-None-Match, or If-Modified-Since not older than the record. */
function notModified(info: RequestInfo, family: ResourceFamily, row: Row): boolean {
  const tags = tagList(info.headers['if-none-match']);
  if (tags) return tags.includes('*') || tags.includes(etagOf(family, row));
  const since = httpDate(info.headers['if-modified-since']);
  const lm = lastModifiedOf(row);
  return since !== undefined && lm !== undefined && lm <= since;
}

/** 412 for a non-matching If-Match, or a record modified after If-Unmodified-Since. */
function checkPreconditions(info: RequestInfo, family: ResourceFamily, row: Row): void {
  const tags = tagList(info.headers['if-match']);
  if (tags && !tags.includes('*') && !tags.includes(etagOf(family, row))) {
    throw new HttpError(412, 'Precondition Failed: the entity tag does not match (the record has changed)');
  }
  const since = httpDate(info.headers['if-unmodified-since']);
  const lm = lastModifiedOf(row);
  if (since !== undefined && lm !== undefined && lm > since) throw new HttpError(412, 'Precondition Failed: the record was modified since then');
}

function listParam(info: RequestInfo, name: string): string[] {
  return [...info.query.getAll(name), ...info.query.getAll(`${name}[]`)].flatMap((v) => v.split(',')).filter(Boolean);
}

/** Runs a write, turning database constraint failures into the statuses the service uses. */
function guarded<T>(family: ResourceFamily, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    const e = err as { code?: string; message?: string };
    if (e.code === 'SQLITE_CONSTRAINT_CHECK') {
      const name = /CHECK constraint failed: (.*)$/.exec(e.message ?? '')?.[1] ?? '';
      throw badRequest(`invalid ${family.name} record: ${checkMessage(name) ?? name}`);
    }
    if (e.code === 'SQLITE_CONSTRAINT_NOTNULL') {
      const column = /\.(\w+)$/.exec(e.message ?? '')?.[1] ?? '?';
      // The live service answers an omitted required column with an opaque 500.
      throw new HttpError(500, `Internal Server Error: null value in column "${column}" of ${family.name} violates not-null constraint`);
    }
    if (e.code === 'SQLITE_CONSTRAINT_UNIQUE') throw conflict(`Conflict: a ${family.name} record with these values exists already`);
    if (isForeignKeyError(err)) throw badRequest(`invalid ${family.name} record: a referenced record does not exist`);
    throw err;
  }
}

/**
 * Checks that every referenced record exists and that the caller may see it,
 * naming the field when not. A record the caller cannot see gets the same
 * answer as one that does not exist, so a write cannot probe for it.
 */
function checkReferences(ctx: SandboxContext, session: Session, family: ResourceFamily, values: Record<string, unknown>): void {
  for (const [name, value] of Object.entries(values)) {
    const ref = family.fields.find((f) => f.name === name)?.ref;
    const target = ref?.isFamily && ref.field === 'ID' ? findFamily(ref.family) : undefined;
    if (value === null || !ref || !target) continue;
    const row = load(ctx, target, Number(value));
    if (!row || !canSee(session, target, row)) {
      throw badRequest(`invalid ${family.name} record: field '${name}' refers to ${ref.family} ${String(value)}, which does not exist`);
    }
  }
}

function recordReply(ctx: SandboxContext, family: ResourceFamily, row: Row, status: number, extra: Record<string, string> = {}): Reply {
  return json(toRecord(ctx, family, row), status, { ...validators(family, row), ...extra });
}

export function createRecord(ctx: SandboxContext, session: Session, family: ResourceFamily, info: RequestInfo): Reply {
  const { values, pseudo, id } = parseWrite(ctx, family, info.body);
  if (id !== undefined) throw conflict('Conflict: ID present; a new record gets its ID from the service');
  const has = (f: string): boolean => family.fields.some((x) => x.name === f);
  if (has('creator')) values.creator = session.user; // parseWrite refuses a creator in the body
  checkWrite(session, family, has('creator') ? session.user : undefined);
  const now = nowSeconds(ctx);
  for (const f of family.fields) if (f.defaultNow && values[f.name] === undefined) values[f.name] = now;
  if (has('lastmodified')) values.lastmodified = now;
  checkReferences(ctx, session, family, values);
  const row = guarded(family, () =>
    ctx.db.transaction(() => {
      const keys = Object.keys(values);
      const sql = keys.length
        ? `INSERT INTO ${table(ctx.instance, family.name)} (${keys.map(q).join(', ')}) VALUES (${keys.map(() => '?').join(', ')})`
        : `INSERT INTO ${table(ctx.instance, family.name)} DEFAULT VALUES`;
      const newId = Number(ctx.db.prepare(sql).run(...keys.map((k) => values[k])).lastInsertRowid);
      writeExtras(ctx, family.name, newId, pseudo);
      return mustLoad(ctx, family, newId);
    })(),
  );
  return recordReply(ctx, family, row, 201, { 'Content-Location': `/${ctx.instance}/api/v1/${family.name}/${row.ID}` });
}

export function getRecord(ctx: SandboxContext, session: Session, family: ResourceFamily, id: number, info: RequestInfo): Reply {
  checkRead(session, family);
  const row = mustLoad(ctx, family, id, session);
  if (notModified(info, family, row)) return empty(304, validators(family, row));
  const names = new Set(expandable(family).map((f) => f.name));
  const expand = new Set(listParam(info, 'expand'));
  for (const e of expand) if (!names.has(e)) throw badRequest(`cannot expand '${e}' on ${family.name}; expandable: ${[...names].join(', ') || 'none'}`);
  const record = toRecord(ctx, family, row, expand);
  if (family.getParams.includes('extdata') && info.query.get('extdata') === '1') record.extdata = readExtdata(ctx, family.name, id);
  if (family.getParams.includes('tags') && info.query.get('tags') === '1') record.tags = readTags(ctx, family.name, id);
  return json(record, 200, validators(family, row));
}

export function existsRecord(ctx: SandboxContext, session: Session, family: ResourceFamily, id: number, info: RequestInfo): Reply {
  checkRead(session, family);
  const row = mustLoad(ctx, family, id, session);
  return empty(notModified(info, family, row) ? 304 : 204, validators(family, row));
}

export function updateRecord(ctx: SandboxContext, session: Session, family: ResourceFamily, id: number, info: RequestInfo): Reply {
  const current = mustLoad(ctx, family, id, session);
  checkWrite(session, family, family.permissions.write?.creatorOnly ? (current.creator ?? null) : undefined);
  const { values, pseudo, id: bodyId } = parseWrite(ctx, family, info.body);
  if (bodyId !== undefined && Number(bodyId) !== id) throw conflict(`Conflict: the body's ID ${String(bodyId)} does not match ${id}`);
  checkPreconditions(info, family, current);
  checkReferences(ctx, session, family, values);
  if (family.fields.some((f) => f.name === 'lastmodified')) values.lastmodified = nowSeconds(ctx);
  const row = guarded(family, () =>
    ctx.db.transaction(() => {
      const keys = Object.keys(values);
      const sets = [...keys.map((k) => `${q(k)} = ?`), `${q(REV)} = ${q(REV)} + 1`];
      ctx.db.prepare(`UPDATE ${table(ctx.instance, family.name)} SET ${sets.join(', ')} WHERE "ID" = ?`).run(...keys.map((k) => values[k]), id);
      writeExtras(ctx, family.name, id, pseudo);
      return mustLoad(ctx, family, id);
    })(),
  );
  return recordReply(ctx, family, row, 200);
}

export function deleteRecord(ctx: SandboxContext, session: Session, family: ResourceFamily, id: number, info: RequestInfo): Reply {
  const current = mustLoad(ctx, family, id, session);
  checkWrite(session, family, family.permissions.write?.creatorOnly ? (current.creator ?? null) : undefined);
  checkPreconditions(info, family, current);
  try {
    ctx.db.transaction(() => {
      ctx.db.prepare(`DELETE FROM ${table(ctx.instance, family.name)} WHERE "ID" = ?`).run(id);
      dropExtras(ctx, family.name, id);
    })();
  } catch (err) {
    if (isForeignKeyError(err)) {
      throw conflict(`Not Deletable: other records depend on ${family.name} ${id}`);
    }
    throw err;
  }
  return empty(204);
}
