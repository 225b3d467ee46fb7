/**
 * Shared by the export tests: tricky accounts inserted straight into the
 * sandbox database, a small RFC 4180 reader, sha256 of files, a trigger
 * that runs code when the sandbox receives its n-th matching request, and a
 * seeded sandbox with a reference export.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { prepareInsert } from '../../src/sandbox/data/store.js';
import { table } from '../../src/sandbox/schema.js';
import { beforeAll, expect } from 'vitest';
import { sandboxCli } from '../helpers/cli.js';
import type { TestSandbox } from '../helpers/sandbox.js';

const NAMES = ['Plain', 'Quote "inside"', 'Comma, and; semicolon', 'Tab\there', 'Ümlaut Straße', '日本語 😀', "Apostrophe's"];

/** Inserts `n` accounts whose names and descriptions hold quotes, separators, line breaks and unicode; answers their IDs. */
export function seedTrickyAccounts(s: TestSandbox, n: number): number[] {
  const insert = prepareInsert(s.sandbox.db, 'demo', 'accounts', ['lastname', 'currency', 'type', 'description']);
  const ids: number[] = [];
  s.sandbox.db.transaction(() => {
    for (let i = 0; i < n; i++) {
      const name = `${NAMES[i % NAMES.length]} ${i}`;
      const description = i % 3 === 0 ? `line one\nline "two", ${i}\r\nthree; ü` : `note ${i}`;
      ids.push(insert([name, 'EUR', i % 6, description]));
    }
  })();
  return ids;
}

/** Deletes an account straight from the database (no dependants in these tests). */
export function deleteAccount(s: TestSandbox, id: number): void {
  s.sandbox.db.prepare(`DELETE FROM ${table('demo', 'accounts')} WHERE ID = ?`).run(id);
}

/** A fresh temporary directory. */
export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'svc-export-'));
}

/** sha256 of a file's bytes. */
export function sha256File(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

export { parseCsv } from '../helpers/csv.js';

/**
 * Calls `fn` when the sandbox records its `n`-th request whose URL contains
 * `path` (1-based, counted from now; faulted requests are not recorded), so a
 * fault set there hits the next request. Needs hooks.record on. Answers a
 * function that stops counting.
 */
export function onRequest(s: TestSandbox, path: string, fn: (n: number) => void): () => void {
  const requests = s.sandbox.hooks.requests;
  const push = requests.push.bind(requests);
  let n = 0;
  requests.push = (...items) => {
    for (const r of items) if (r.url.includes(path)) fn(++n);
    return push(...items);
  };
  return () => {
    requests.push = push;
  };
}

/**
 * For a test file about export targets: a sandbox seeded with `n` tricky
 * accounts and, made once before the tests, a reference CSV export of them
 * (what every other target must hold, byte for byte).
 */
export function useReferenceExport(n: number): ReturnType<typeof sandboxCli> & { reference(): string } {
  const cli = sandboxCli();
  let reference = '';
  beforeAll(async () => {
    seedTrickyAccounts(cli.sandbox(), n);
    reference = join(tempDir(), 'reference.csv');
    expect((await cli.run(['accounts', 'export', '--format', 'csv', '--output-file', reference])).code).toBe(0);
  }, 60_000);
  return { ...cli, reference: () => reference };
}
