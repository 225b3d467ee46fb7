/**
 * Attack round on `svc api` and `--jq`: paths that try to leave the data
 * interface (unicode dots, '@', '//host', encoded dots, backslashes), the token
 * never leaving the instance, --paginate while records come and go between
 * pages (seeded; replay with BULK_ATTACK_SEED=<n>), and jq expressions that
 * never end, allocate without end, or try to read the environment or files.
 */
import { describe, expect, it } from 'vitest';
import { createRandom } from '../../src/util/random.js';
import { table } from '../../src/sandbox/schema.js';
import { sandboxCli } from '../helpers/cli.js';
import { insertAccount } from '../commands/records/import-support.js';

const SEED = process.env.BULK_ATTACK_SEED ? Number(process.env.BULK_ATTACK_SEED) : Math.floor(Math.random() * 2 ** 31);
const REPLAY = `replay: BULK_ATTACK_SEED=${SEED} npx vitest run test/attack/bulk-api-jq-api-jq.test.ts`;

const { sandbox, run } = sandboxCli();

describe('svc api: a path never leads out of the interface it names', () => {
  it.each([
    'accounts/\uff0e\uff0e/\uff0e\uff0e/auth/v1',
    'accounts/\u2024\u2024/config',
    'accounts/%E2%80%A4%E2%80%A4/config',
    '@127.0.0.2/accounts',
    'accounts@evil.example/x',
    '//evil.example/accounts',
    '///evil.example/accounts',
    'accounts/%2e%2e%3b/x',
    'accounts/..\\..\\auth',
    'accounts/%5c..%5c..%5cauth',
    'http:evil.example/accounts',
    'auth/%2e%2e/api/v1/accounts',
  ])('%j is refused (exit 2) or sent under /demo/api/v1 or /demo/auth/v1, with the token only to the sandbox', async (path) => {
    const r = await run(['api', path]);
    const s = sandbox();
    const seen = s.sandbox.hooks.requests.map((q) => q.url);
    if (r.code === 2) {
      expect(seen).toEqual([]);
      expect(r.stderr.split('\n').length).toBe(2);
    } else {
      expect(seen.length, r.stderr).toBeGreaterThan(0);
      for (const url of seen) expect(url).toMatch(/^\/demo\/(?:api|auth)\/v1\//);
      if (!path.startsWith('auth/')) for (const url of seen) expect(url).toMatch(/^\/demo\/api\/v1\//);
    }
    expect(r.stderr).not.toContain(s.token());
    expect(r.stdout).not.toContain(s.token());
  });
});

describe(`svc api --paginate while records come and go between pages (seed ${SEED})`, () => {
  it('every record present for the whole run comes out exactly once; none twice', async () => {
    const s = sandbox();
    const random = createRandom(SEED);
    const prefix = `PAG${SEED % 1000}-`;
    const ids = Array.from({ length: 60 }, (_, i) => insertAccount(s, { lastname: `${prefix}${i}` }));
    const deleted = new Set<number>();
    let pages = 0;
    s.sandbox.hooks.onArrival = (method) => {
      if (method !== 'POST') return;
      pages++;
      // Between pages: delete a random record, add two new ones.
      const live = ids.filter((id) => !deleted.has(id));
      const victim = live[random.int(0, live.length - 1)];
      if (victim !== undefined) {
        s.sandbox.db.prepare(`DELETE FROM ${table('demo', 'accounts')} WHERE ID = ?`).run(victim);
        deleted.add(victim);
      }
      insertAccount(s, { lastname: `${prefix}new-${pages}-a` });
      insertAccount(s, { lastname: `${prefix}new-${pages}-b` });
    };
    const r = await run(['api', 'accounts', '-f', 'fields[]=ID', '-f', 'fields[]=lastname', '-F', 'limit=7', '--paginate', '-o', 'ndjson']);
    s.sandbox.hooks.onArrival = undefined;
    expect(r.code, `${REPLAY}\n${r.stderr}`).toBe(0);
    const out = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { ID: number });
    const got = out.map((o) => Number(o.ID));
    expect(new Set(got).size, REPLAY).toBe(got.length);
    for (const id of ids) if (!deleted.has(id)) expect(got, `${REPLAY}: record ${id} missing`).toContain(id);
    expect(pages).toBeGreaterThan(5);
  });
});

describe('--jq: expressions that never end, allocate without end, or reach for the environment', () => {
  it.each(['def f: f; f', 'repeat(1)', '[range(1e9)] | length', '"x" * 1e9 | length', 'last(range(1e12))'])(
    '%j is stopped at SVC_JQ_TIMEOUT: exit 1, one line, nothing on stdout',
    async (expr) => {
      const r = await run(['accounts', 'get', '1', '--jq', expr], { env: { SVC_JQ_TIMEOUT: '1s' } });
      expect(r).toEqual({ code: 1, stdout: '', stderr: 'svc: --jq: jq did not finish within 1s and was stopped; set SVC_JQ_TIMEOUT for a longer limit\n' });
    },
  );

  it('sees neither the token nor the files: $ENV, env, import and include', async () => {
    const s = sandbox();
    const env = await run(['accounts', 'get', '1', '--jq', '[$ENV, env] | tostring']);
    expect(env.code).toBe(0);
    expect(env.stdout).not.toContain(s.token());
    expect(env.stdout).not.toContain('SVC_');
    for (const expr of ['import "/etc/passwd" as $p; $p', 'include "/etc/hosts"; .', 'import "a" as a; .']) {
      const r = await run(['accounts', 'get', '1', '--jq', expr]);
      expect(r.code, expr).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/^svc: invalid --jq expression: module not found: .*\n$/);
    }
  });

  it('an error message carrying a line break or an escape sequence stays one plain line on stderr', async () => {
    const r = await run(['accounts', 'get', '1', '--jq', '"a\\nb\\u001b[2Jc" | error']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr, JSON.stringify(r.stderr)).toMatch(/^svc: --jq: [^\n\x1b]*\n$/);
  });
});
