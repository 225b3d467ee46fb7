/**
 * One-time codes that were used: the last accepted TOTP time step per user,
 * kept in the instance's `_otpsteps` table, so that a code cannot be used a
 * second time within its window (RFC 6238 section 5.2).
 */
import type { SandboxContext } from '../context.js';
import { prepareCached } from '../data/query/statements.js';
import { table } from '../schema.js';

/** Whether `step` is later than every step this user has logged in with, i.e. its code is still unused. */
export function isUnusedOtpStep(ctx: SandboxContext, user: number, step: number): boolean {
  const row = prepareCached(ctx.db, `SELECT step FROM ${table(ctx.instance, '_otpsteps')} WHERE user = ?`).get(user) as { step: number } | undefined;
  return row === undefined || step > row.step;
}

/** Records that the code of `step` was used by this user; later calls with an earlier step change nothing. */
export function useOtpStep(ctx: SandboxContext, user: number, step: number): void {
  prepareCached(
    ctx.db,
    `INSERT INTO ${table(ctx.instance, '_otpsteps')} (user, step) VALUES (?, ?) ON CONFLICT(user) DO UPDATE SET step = max(step, excluded.step)`,
  ).run(user, step);
}
