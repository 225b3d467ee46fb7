/**
 * A field or filter through a reference (`contact.city`) cannot be kept in
 * step: a change to the referenced contact does not change the account's
 * lastmodified, so neither sync's incremental pass nor watch's poll would see
 * it, and the copy would differ from `query --all` for good with exit 0 (found
 * by the review). sync and watch refuse such paths (exit 2, one line, nothing
 * sent), in --fields and in filters; extdata.NAME, the record's own, is
 * followed.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { referencePaths } from '../../src/records/followed-paths.js';
import { sandboxCli } from '../helpers/cli.js';
import { tempDir } from '../sync/support.js';

const { sandbox, run } = sandboxCli();

describe('a path through a reference', () => {
  it('is found in selected paths and at any depth of a filter, extdata aside', () => {
    expect(referencePaths(['ID', 'contact.city', 'extdata.color'], { 0: ['AND', { type: 0 }, { 0: ['OR', { 'owner.name': { '~': 'x' } }, { ID: 1 }] }] })).toEqual(['contact.city', 'owner.name']);
    expect(referencePaths(['ID', 'lastname'], { lastname: { '~': 'a.b' } })).toEqual([]);
  });

  it.each([
    [['--fields', 'ID,lastname,city=contact.city'], 'contact.city'],
    [['--filter', 'contact.city = "Bern"'], 'contact.city'],
  ])('sync %j refuses with exit 2 naming the path, and sends nothing', async (flags, path) => {
    const file = join(tempDir(), 'copy.sqlite');
    sandbox().sandbox.hooks.requests.length = 0;
    const r = await run(['accounts', 'sync', '--into', file, ...flags]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toBe(
      `svc: accounts sync cannot follow '${path}': a change to the record 'contact' refers to does not change this record's lastmodified, so it would never be seen; leave it out of --fields and --filter, and sync the family 'contact' refers to as well\n`,
    );
    expect(sandbox().sandbox.hooks.requests.filter((q) => q.url.includes('/api/v1/accounts'))).toEqual([]);
  });

  it.each([
    [['--fields', 'ID,lastname,contact.city'], 'contact.city'],
    [['--filter', 'contact.city = "Bern"'], 'contact.city'],
  ])('watch %j refuses with exit 2 naming the path', async (flags, path) => {
    const cursor = join(tempDir(), 'cursor.json');
    const r = await run(['accounts', 'watch', '--once', '--cursor-file', cursor, ...flags]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`svc: accounts watch cannot follow '${path}'`);
  });

  it('sync and watch take the record’s own fields', async () => {
    const file = join(tempDir(), 'copy.sqlite');
    expect((await run(['accounts', 'sync', '--into', file, '--fields', 'ID,lastname,firstname'])).code).toBe(0);
    const cursor = join(tempDir(), 'cursor.json');
    const r = await run(['accounts', 'watch', '--once', '--since', 'now', '--cursor-file', cursor, '--fields', 'ID,lastname']);
    expect(r.code, r.stderr).toBe(0);
  });
});

// Found by the review: a --filter-file that is missing or a directory was "unexpected error: ENOENT…".
describe('--filter-file that cannot be read', () => {
  it.each([
    ['query', ['accounts', 'query']],
    ['sync', ['accounts', 'sync', '--into', 'x.sqlite']],
    ['watch', ['accounts', 'watch', '--once']],
  ])('%s: a missing file or a directory is exit 2 in one line naming it', async (_verb, argv) => {
    const dir = tempDir();
    for (const [file, why] of [
      [join(dir, 'missing.json'), 'no such file'],
      [dir, 'it is a directory'],
    ] as const) {
      const r = await run([...argv.map((a) => (a === 'x.sqlite' ? join(dir, a) : a)), '--filter-file', file]);
      expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 2, stderr: `svc: cannot read --filter-file ${file} (${why}); give a readable file of JSON, or - for standard input\n` });
    }
  });
});
