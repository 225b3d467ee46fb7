import type { Socket } from 'node:net';
import { createRandom } from '../util/random.js';

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

/**
 * What a flaky server does, for `svc sandbox start --faults RATE`: 503 with
 * Retry-After, 429, a dropped connection, or a slow (but correct) answer.
 */
export function randomFault(random: () => number): Fault {
  const r = random();
  if (r < 0.35) return { status: 503, body: 'Service Unavailable (sandbox fault)', headers: { 'Retry-After': '1' } };
  if (r < 0.6) return { status: 429, body: 'Too Many Requests (sandbox fault)', headers: { 'Retry-After': '0' } };
  if (r < 0.8) return { drop: true };
  return { delayMs: 100 + Math.floor(random() * 400) };
}

/**
 * Waits out a `delayMs` fault: `ms`, or less when the client's socket closes
 * first, so a long stall never outlives its client. Resolves true when the
 * socket closed (nobody is left to answer), false when the delay ran out.
 */
export function waitDelay(socket: Socket, ms: number): Promise<boolean> {
  if (socket.destroyed) return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (closed: boolean): void => {
      clearTimeout(timer);
      socket.off('close', onClose);
      resolve(closed);
    };
    const onClose = (): void => done(true);
    const timer = setTimeout(() => done(false), ms);
    socket.once('close', onClose);
  });
}

export class SandboxHooks {
  /** Requests received, oldest first, when `record` is on. */
  readonly requests: RequestRecord[] = [];
  record = false;
  /**
   * Called first for every request, before its fault is chosen, so a callback
   * may call `failNext` to fault that very request (e.g. stall it while the
   * test stops its client). Cleared by `reset`.
   */
  onArrival?: (method: string, url: string) => void;
  private readonly rules: FaultRule[] = [];
  /** Share of data and auth requests that fail at random (0 = none). */
  faultRate = 0;
  private random: () => number = createRandom(1).next;

  /** Fails this share of requests at random from now on, reproducibly for a seed. */
  setFaultRate(rate: number, seed = 1): void {
    this.faultRate = rate;
    this.random = createRandom(seed).next;
  }

  /** Makes the next matching request(s) fail as described. */
  failNext(rule: FaultRule): void {
    this.rules.push({ ...rule, times: rule.times ?? 1 });
  }

  /** The fault for this request: a rule that matches (consuming one use), else maybe a random one. */
  takeFault(method: string, url: string): Fault | undefined {
    const ruled = this.takeRule(method, url);
    if (ruled) return ruled;
    if (this.faultRate > 0 && !url.startsWith('/_sandbox/') && this.random() < this.faultRate) return randomFault(this.random);
    return undefined;
  }

  private takeRule(method: string, url: string): Fault | undefined {
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

  /** Forgets recorded requests, pending faults and the onArrival callback. */
  reset(): void {
    this.requests.length = 0;
    this.rules.length = 0;
    this.onArrival = undefined;
  }
}
