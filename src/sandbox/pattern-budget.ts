/**
 * The time budget of one query's pattern matching. Every `~` and `~~`
 * condition (and the `query` search) is a JavaScript function that SQLite
 * calls once per row; each call is linear in its text, but a query may
 * make millions of them, and better-sqlite3 runs a statement synchronously, so
 * without a budget one request could hold the server for minutes.
 *
 * `withPatternBudget` sets a deadline around one query (compiling its
 * patterns and running its statement); the pattern functions call
 * `checkPatternBudget` before each match, as does the filter compiler before
 * each regular expression it compiles, and throw `PatternBudgetError` once it
 * has passed, which aborts the statement. A single match or compilation is
 * never interrupted, so a query ends at most one of them after its deadline.
 * Outside a budgeted query (writes, CHECK constraints) the check does nothing.
 */

/** Thrown by a pattern function (or the filter compiler) when the running query's budget is spent. */
export class PatternBudgetError extends Error {
  constructor(readonly budgetMs: number) {
    super(`pattern matching took longer than ${budgetMs} ms`);
    this.name = 'PatternBudgetError';
  }
}

interface Deadline {
  readonly at: number;
  readonly budgetMs: number;
}

/** The deadline of the query running now; better-sqlite3 runs statements synchronously, so one at a time. */
let current: Deadline | undefined;

/** Throws PatternBudgetError when a budgeted statement is running and its deadline has passed. */
export function checkPatternBudget(): void {
  if (current !== undefined && performance.now() > current.at) throw new PatternBudgetError(current.budgetMs);
}

/**
 * Runs `query` (which must be synchronous) with `budgetMs` of pattern
 * matching allowed; the deadline is cleared afterwards, however it ends, so
 * later statements (writes, other requests) run without one.
 */
export function withPatternBudget<T>(budgetMs: number, query: () => T): T {
  const outer = current;
  current = { at: performance.now() + budgetMs, budgetMs };
  try {
    return query();
  } finally {
    current = outer;
  }
}
