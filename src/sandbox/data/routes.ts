/**
 * The data interface, `/<instance>/api/v1/…`: the two general operations and,
 * for every family, query (POST) and create (PUT) on the collection, get
 * (GET), exists (HEAD), update (PATCH) and delete (DELETE) on a record.
 */
import { findFamily, type Operation } from '../../catalogue/index.js';
import { requireSession } from '../auth/session.js';
import type { RequestInfo, SandboxContext } from '../context.js';
import { HttpError } from '../errors.js';
import { json, type Reply } from '../http/respond.js';
import { excerpt } from '../limits.js';
import { checkRead } from './permissions.js';
import { runQuery } from './query/index.js';
import { createRecord, deleteRecord, existsRecord, getRecord, updateRecord } from './records.js';

const COLLECTION: Record<string, Operation> = { POST: 'list', PUT: 'create' };
const RECORD: Record<string, Operation> = { GET: 'get', HEAD: 'exists', PATCH: 'update', DELETE: 'delete' };

function methodNotAllowed(allowed: readonly string[], what: string): HttpError {
  return new HttpError(405, `Method Not Allowed on ${what}`, { Allow: allowed.join(', ') });
}

export async function handleData(ctx: SandboxContext, info: RequestInfo): Promise<Reply> {
  const [name, idText, ...extra] = info.segments;
  if (!name || extra.length > 0) throw new HttpError(404, 'Not Found');
  const session = requireSession(ctx, info.headers, { appSpecific: true });
  if ((name === 'config' || name === 'settings') && idText === undefined) {
    if (info.method !== 'GET' && info.method !== 'HEAD') throw methodNotAllowed(['GET'], `/${name}`);
    return json(name === 'config' ? configOf(ctx) : { application: session.application, locale: 'en', pagesize: 50 });
  }
  const family = findFamily(name);
  if (!family) throw new HttpError(404, `Not Found: no resource '${excerpt(name)}'`);
  const table = idText === undefined ? COLLECTION : RECORD;
  const op = table[info.method];
  const allowed = Object.entries(table).filter(([, o]) => family.operations.includes(o)).map(([m]) => m);
  if (!op || !family.operations.includes(op)) throw methodNotAllowed(allowed, `/${name}${idText === undefined ? '' : '/{ID}'}`);
  if (idText === undefined) {
    if (op === 'list') {
      checkRead(session, family);
      return runQuery(ctx, session, family, info.body ?? {});
    }
    return createRecord(ctx, session, family, info);
  }
  const id = recordId(idText);
  switch (op) {
    case 'get':
      return getRecord(ctx, session, family, id, info);
    case 'exists':
      return existsRecord(ctx, session, family, id, info);
    case 'update':
      return updateRecord(ctx, session, family, id, info);
    default:
      return deleteRecord(ctx, session, family, id, info);
  }
}

/**
 * The record ID in a path: 404 when the segment is not a number (no record has
 * that name), 400 when it is beyond 2^53 − 1, which a double cannot hold
 * exactly (9007199254740993 would silently read record 9007199254740992).
 */
export function recordId(text: string): number {
  if (!/^\d+$/.test(text)) throw new HttpError(404, `Not Found: '${excerpt(text)}' is not a record ID`);
  const digits = text.replace(/^0+(?=\d)/, '');
  const id = digits.length <= 16 ? Number(digits) : Number.POSITIVE_INFINITY;
  if (!Number.isSafeInteger(id)) {
    throw new HttpError(400, `record ID ${excerpt(text, 30)} is beyond 2^53 − 1 (9007199254740991), the largest ID the sandbox holds exactly`);
  }
  return id;
}

function configOf(ctx: SandboxContext): Record<string, unknown> {
  return { instance: ctx.instance, currency: 'EUR', timezone: 'Europe/Berlin', locale: 'en', version: 'v1', sandbox: true };
}
