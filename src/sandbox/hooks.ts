/**
 * Test hooks, off unless asked for: a log of the requests that crossed the
 * wire, and faults for the next matching request (a status, a dropped
 * connection, a delay), so error paths are tested over a real socket.
 */

export interface RequestRecord {
  readonly method: string;
  /** Path with query string, as received. */
  readonly url: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: unknown;
  status?: number;
}

export type Fault =
  | { readonly status: number; readonly body?: string; readonly headers?: Readonly<Record<string, string>> }
  | { readonly drop: true }
  | { readonly delayMs: number };

export interface FaultRule {
  readonly method?: string;
  /** Matches when the request path contains this text (or matches this pattern). */
  readonly path?: string | RegExp;
  /** How many matching requests fail (default 1). */
  times?: number;
  readonly fault: Fault;
}

export class SandboxHooks {
  /** Requests received, oldest first, when `record` is on. */
  readonly requests: RequestRecord[] = [];
  record = false;
  private readonly rules: FaultRule[] = [];

  /** Makes the next matching request(s) fail as described. */
  failNext(rule: FaultRule): void {
    this.rules.push({ ...rule, times: rule.times ?? 1 });
  }

  /** The fault for this request, if a rule matches (consuming one use). */
  takeFault(method: string, url: string): Fault | undefined {
    const i = this.rules.findIndex(
      (r) =>
        (r.method === undefined || r.method.toUpperCase() === method) &&
        (r.path === undefined || (typeof r.path === 'string' ? url.includes(r.path) : r.path.test(url))),
    );
    if (i < 0) return undefined;
    const rule = this.rules[i];
    if (!rule) return undefined;
    rule.times = (rule.times ?? 1) - 1;
    if (rule.times <= 0) this.rules.splice(i, 1);
    return rule.fault;
  }

  /** Forgets recorded requests and pending faults. */
  reset(): void {
    this.requests.length = 0;
    this.rules.length = 0;
  }
}
