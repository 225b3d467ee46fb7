/**
 * One request within every limit must not hold the server: the attacker
 * review's requests (999 OR'ed `~*` conditions over 5,000 accounts; many
 * `~~*` conditions over a 2-million-character description) answer 400 within
 * a few seconds, and health answers right after. Each query's patterns get
 * LIMITS.patternBudgetMs (src/sandbox/pattern-budget.ts), and a filter at
 * most LIMITS.patternConditions pattern conditions.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../../src/sandbox/limits.js';
import { checkPatternBudget, PatternBudgetError, withPatternBudget } from '../../src/sandbox/pattern-budget.js';
import { table } from '../../src/sandbox/schema.js';
import { useTestSandbox } from '../helpers/sandbox.js';
/** The account with the 2-million-character description. */
let bigId: number;
const SEEDED = 5000;
/** Liveness, not speed: the budget plus one pattern call over the biggest text, with room for a slow machine. */
const ANSWER_WITHIN_MS = 8000;
const BUDGET_MESSAGE =
  /^the query's patterns \(~ and ~~ conditions, query terms\) took longer than 2 s over the accounts records; the sandbox allows at most 2 s of pattern matching per query \(use fewer or simpler patterns, or narrow the filter with indexed fields\)$/;

const s = useTestSandbox({ seedAccounts: SEEDED });

beforeAll(async () => {
  const put = await s.call('PUT', 'api/v1/accounts', { token: s.token('demo'), json: { lastname: 'Budget Big', currency: 'EUR' } });
  expect(put.status, put.text).toBe(201);
  bigId = put.json<{ ID: number }>().ID;
  // Twice what a write may store (LIMITS.textLength): planted in the database, as data from elsewhere could be.
  s.sandbox.db.prepare(`UPDATE ${table('demo', 'accounts')} SET description = ? WHERE "ID" = ?`).run('a'.repeat(2_000_000), bigId);
}, 60_000);

/** Sends a query as reader, then health: returns the answer and both times. */
async function timed(body: unknown): Promise<{ status: number; text: string; ms: number; healthMs: number }> {
  const started = performance.now();
  const r = await s.call('POST', 'api/v1/accounts', { token: s.token('reader'), json: body });
  const ms = performance.now() - started;
  const health = await s.call('GET', '/_sandbox/health', { token: null });
  expect(health.status).toBe(200);
  return { status: r.status, text: r.text, ms, healthMs: performance.now() - started - ms };
}

const ored = (n: number, condition: (i: number) => unknown): unknown => ['OR', ...Array.from({ length: n }, (_, i) => condition(i))];

describe('a query cannot hold the server with its patterns', () => {
  it("refuses the attacker's 999 OR'ed ~* conditions at once, naming the pattern-condition limit", async () => {
    const pattern = (i: number): string => `(?:${'[a-zäöü]'.repeat(95)})?z${i}`;
    const body = { filter: ored(999, (i) => ({ lastname: { '~*': pattern(i) } })), fields: ['ID'] };
    expect(Buffer.byteLength(JSON.stringify(body))).toBeGreaterThan(800_000); // 0.8 MB, as the attacker sent
    const r = await timed(body);
    expect(r.status, r.text).toBe(400);
    expect(r.text).toBe(
      'filter has more than 64 pattern conditions (~ and ~~ operators); the sandbox allows at most 64 (join alternatives into one regular expression with |, or narrow the filter with indexed fields)',
    );
    expect(r.ms).toBeLessThan(ANSWER_WITHIN_MS);
    expect(r.healthMs).toBeLessThan(1000);
    expect((await timed({ filter: ored(LIMITS.patternConditions, (i) => ({ lastname: { '~*': `^x${i}` } })), count: true })).status).toBe(200);
  });

  it('stops many ~~* conditions over a 2-million-character description at the budget, whatever the pattern, and later queries run as before', async () => {
    // On an ASCII text, ASCII patterns once went to SQLite's own LIKE, which no budget can stop; the ü ones to svc_like.
    for (const tail of ['b', 'ü']) {
      const r = await timed({ filter: ored(32, (i) => ({ description: { '~~*': `%${'a'.repeat(900)}${tail}${i}%` } })), fields: ['ID'] });
      expect(r.status, r.text).toBe(400);
      expect(r.text).toMatch(BUDGET_MESSAGE);
      expect(r.ms).toBeGreaterThan(LIMITS.patternBudgetMs);
      expect(r.ms).toBeLessThan(ANSWER_WITHIN_MS);
      expect(r.healthMs).toBeLessThan(1000);
    }
    // The budget ends with its query: later queries, searches and writes (which check field patterns
    // with the same SQL function, outside any budget) run as before.
    const one = await timed({ filter: { description: { '~*': '^a{9}' } }, fields: ['ID'] });
    expect(one.status, one.text).toBe(200);
    expect(JSON.parse(one.text)).toEqual([{ ID: bigId }]);
    const search = await s.call('POST', 'api/v1/accounts', { token: s.token('reader'), json: { query: 'budget BIG', fields: ['ID'] } });
    expect(search.json()).toEqual([{ ID: bigId }]);
    expect((await s.call('PUT', 'api/v1/accounts', { token: s.token('demo'), json: { lastname: 'After Budget', currency: 'EUR' } })).status).toBe(201);
  });

  it('counts compiling regular expressions toward the budget', async () => {
    // Each of these takes about 0.1 s to compile ([[:alpha:]] is RE2's \p{L}); the rows (ID below the big one) are short.
    const filter = ['AND', { ID: { '<': bigId } }, ored(64, (i) => ({ lastname: { '~': `[[:alpha:]]{255}X${i}` } }))];
    const r = await timed({ filter, count: true });
    expect(r.status, r.text).toBe(400);
    expect(r.text).toMatch(BUDGET_MESSAGE);
    expect(r.ms).toBeLessThan(ANSWER_WITHIN_MS);
  });
});

describe('withPatternBudget', () => {
  it('clears its deadline after the query, however it ends', () => {
    const spin = (): never => {
      for (;;) checkPatternBudget();
    };
    expect(() => withPatternBudget(0, spin)).toThrow(PatternBudgetError);
    expect(() => checkPatternBudget()).not.toThrow();
    expect(withPatternBudget(10_000, () => 'done')).toBe('done');
    expect(() => checkPatternBudget()).not.toThrow();
  });
});
