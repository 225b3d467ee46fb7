/**
 * The sandbox agrees with the service on what a query may carry: members the
 * vendor's api.json does not define are ignored (the vendor CLI sends
 * `extdata: 1`), known ones stay strict; and `messages.messageid`, a column of
 * the database catalogue, is a field like any other, also in a data dir made
 * before the catalogue had it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { startTestSandbox, useTestSandbox } from '../helpers/sandbox.js';
const s = useTestSandbox();

describe('query members', () => {
  it('ignores members the service does not define, as the service does', async () => {
    const r = await s.call('POST', 'api/v1/accounts', { json: { extdata: 1, filtr: { type: 1 }, fields: ['ID'], limit: 2 } });
    expect(r.status, r.text).toBe(200);
    expect(r.json()).toEqual([{ ID: 1 }, { ID: 2 }]);
    const form = await s.call('POST', 'api/v1/accounts', { form: 'extdata=1&tags[]=x&fields[]=ID&limit=1' });
    expect(form.json()).toEqual([{ ID: 1 }]);
  });

  it('still checks the members it knows', async () => {
    const r = await s.call('POST', 'api/v1/accounts', { json: { extdata: 1, limit: 'x' } });
    expect(r.status).toBe(400);
    expect(r.text).toMatch(/parameter 'limit' must be an integer from 1 to 10000, not "x"/);
  });
});

describe('messages.messageid', () => {
  it('is written, filtered, sorted and selected like any field', async () => {
    const put = await s.call('PUT', 'api/v1/messages', { json: { subject: 'Hello', messageid: '<abc@example.com>' } });
    expect(put.status, put.text).toBe(201);
    const id = put.json<{ ID: number; messageid: string }>();
    expect(id.messageid).toBe('<abc@example.com>');
    const r = await s.call('POST', 'api/v1/messages', { json: { filter: { messageid: '<abc@example.com>' }, fields: ['ID', 'messageid'], sort: ['messageid'] } });
    expect(r.json()).toEqual([{ ID: id.ID, messageid: '<abc@example.com>' }]);
  });

  it('is added to a data dir made before the catalogue had it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-messageid-'));
    try {
      const first = await startTestSandbox({ dataDir: dir });
      await first.close();
      const db = new Database(join(dir, 'sandbox.sqlite'));
      db.exec('DROP INDEX "demo/messages.messageid"; ALTER TABLE "demo/messages" DROP COLUMN messageid');
      db.close();
      const again = await startTestSandbox({ dataDir: dir });
      try {
        const r = await again.call('POST', 'api/v1/messages', { json: { fields: ['ID', 'messageid'], filter: { messageid: '' }, limit: 1 } });
        expect(r.status, r.text).toBe(200);
      } finally {
        await again.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
