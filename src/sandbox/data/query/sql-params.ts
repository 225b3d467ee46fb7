/**
 * Named SQL parameters: every value a request carries is bound, never written
 * into the SQL text. Names are numbered in order, so two requests of the same
 * shape produce the same SQL text (and share a prepared statement).
 */
/** The parameters of one statement, bound by name. */
export class SqlParams {
  readonly values: Record<string, unknown> = {};
  private next = 0;

  /** Binds a value and returns its placeholder (`$p0`, `$p1`, …). */
  add(value: unknown): string {
    const name = `p${this.next++}`;
    this.values[name] = typeof value === 'boolean' ? (value ? 1 : 0) : value;
    return `$${name}`;
  }
}
