/**
 * The bodies of `svc config` and `svc settings`: `GET /config` (user-visible
 * system configuration) and `GET /settings` (the settings of the application
 * the token belongs to), shown as objects.
 */
import { connectCmd } from '../legacy.js';
import type { Command } from 'commander';
import { toCell } from '../../output/cells.js';
import type { ObjectView } from '../../output/view.js';
import { connect } from '../connection.js';
import type { Deps } from '../deps.js';

/** The general operations svc exposes as commands. */
export type GeneralPath = 'config' | 'settings';

/** An object from the service as a view: the object as data, one member a row on a terminal. */
export function generalView(value: unknown): ObjectView {
  const entries = typeof value === 'object' && value !== null && !Array.isArray(value) ? Object.entries(value) : [['value', value] as const];
  return { kind: 'object', value, details: entries.map(([k, v]) => [k, toCell(v)] as const) };
}

/** Fetches `GET /<path>` with the token (exit 4 without one) and returns it as a view. */
export async function fetchGeneral(self: Command, deps: Deps, path: GeneralPath): Promise<ObjectView> {
  const conn = await connectCmd(self, deps, { token: true });
  try {
    const res = await conn.client.request({ method: 'GET', root: 'api', path: `/${path}` });
    return generalView(await res.json<unknown>());
  } finally {
    await conn.client.close();
  }
}
