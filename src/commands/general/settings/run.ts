/** `svc settings`: one GET with the token; exit 4 without one. */
import type { NoOptions } from '../../../cli/command.js';
import type { Context } from '../../../cli/context.js';
import { showGeneral } from '../fetch.js';

export async function runSettings(_opts: NoOptions, ctx: Context): Promise<void> {
  await showGeneral(ctx, 'settings');
}
