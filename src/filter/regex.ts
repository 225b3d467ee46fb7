/**
 * The check svc makes on a `~` pattern before sending it: is it a regular
 * expression in the service's dialect, PostgreSQL's (advanced regular
 * expressions)? It is read by src/util/pg-regex.ts, a reader of PostgreSQL's
 * own syntax (directors, embedded options, `(?#…)` comments, brackets with
 * POSIX classes and collating elements, escapes as PostgreSQL's tables give
 * them, bounds of at most 255), the same reader the sandbox rewrites patterns
 * with: what PostgreSQL refuses is refused here, in PostgreSQL's words. What
 * PostgreSQL runs and a sandbox may not (backreferences, lookaround, `(?b)`)
 * is sent: the service judges it. The pattern is only read, never run.
 */
import { readPgRegex } from '../util/pg-regex.js';

/** Why `text` is not a PostgreSQL regular expression, or undefined when it is one. */
export function regexProblem(text: string): string | undefined {
  const read = readPgRegex(text);
  return read.ok ? undefined : read.detail;
}
