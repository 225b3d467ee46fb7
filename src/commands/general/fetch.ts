/**
 * What `svc config` and `svc settings` share: `GET /config` (user-visible
 * system configuration) or `GET /settings` (the settings of the application
 * the token belongs to), shown as an object.
 */
import type { Context } from '../../cli/context.js';
import { toCell } from '../../output/cells.js';
import type { ObjectView } from '../../output/view.js';

/** The general operations svc exposes as commands. */
export type GeneralPath = 'config' | 'settings';

/** An object from the service as a view: the object as data, one member a row on a terminal. */
export function generalView(value: unknown): ObjectView {
  const entries = typeof value === 'object' && value !== null && !Array.isArray(value) ? Object.entries(value) : [['value', value] as const];
  return { kind: 'object', value, details: entries.map(([k, v]) => [k, toCell(v)] as const) };
}

/** Fetches `GET /<path>` with the token (exit 4 without one) and writes it. */
export async function showGeneral(ctx: Context, path: GeneralPath): Promise<void> {
  const { client } = await ctx.connect({ token: true });
  const res = await client.request({ method: 'GET', root: 'api', path: `/${path}` });
  await ctx.emit(generalView(await res.json<unknown>()));
}
