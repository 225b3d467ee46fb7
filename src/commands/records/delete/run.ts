/** `svc <family> delete ID`: asks on a terminal unless --yes, refuses without one; DELETE (If-Match with --if-match). */
import type { Context } from '../../../cli/context.js';
import { ask, canPrompt } from '../../../cli/prompt.js';
import { SvcError, UsageError } from '../../../errors.js';
import { reportWrite, sendWrite } from '../write-send.js';
import type { DeleteOptions } from './options.js';

async function confirmed(ctx: Context, what: string, yes: boolean): Promise<boolean> {
  if (yes) return true;
  if (!canPrompt(ctx.deps)) throw new UsageError(`delete ${what} needs confirmation and there is no terminal to ask on; pass --yes`);
  const answer = (await ask(ctx.deps, `delete ${what}? [y/N]`)).toLowerCase();
  return answer === 'y' || answer === 'yes';
}

export async function runDelete(opts: DeleteOptions, ctx: Context): Promise<void> {
  const what = `${opts.family.name} ${opts.id}`;
  if (!(await confirmed(ctx, what, opts.yes))) throw new SvcError(`not deleted: ${what} was kept (answer y to delete it, or pass --yes)`);
  const { etag } = await sendWrite(ctx, opts.family, opts.id, { method: 'DELETE', ifMatch: opts.ifMatch });
  reportWrite(ctx, `deleted ${what}`, etag);
}
