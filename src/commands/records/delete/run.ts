/**
 * `svc <family> delete ID`: asks on a terminal unless --yes, refuses without
 * one; DELETE (If-Match with --if-match). With --filter, every matching
 * record; with --dry-run, the request instead.
 */
import type { Context } from '../../../cli/context.js';
import { ask, canPrompt } from '../../../cli/prompt.js';
import { SvcError, UsageError } from '../../../errors.js';
import { runByFilter } from '../write-by-filter.js';
import { printDryRun, refuseJq, refuseJqDryRun } from '../write-dry-run.js';
import { reportWrite, sendWrite } from '../write-send.js';
import { deleteOne } from './bulk.js';
import type { DeleteOptions } from './options.js';

async function confirmed(ctx: Context, what: string, yes: boolean): Promise<boolean> {
  if (yes) return true;
  if (!canPrompt(ctx.deps)) throw new UsageError(`delete ${what} needs confirmation and there is no terminal to ask on; pass --yes`);
  const answer = (await ask(ctx.deps, `delete ${what}? [y/N]`)).toLowerCase();
  return answer === 'y' || answer === 'yes';
}

export async function runDelete(opts: DeleteOptions, ctx: Context): Promise<void> {
  const { family } = opts;
  if (opts.byFilter) {
    return runByFilter(ctx, {
      verb: 'delete',
      family,
      byFilter: opts.byFilter,
      dryRun: opts.dryRun === true,
      goneIsDone: true,
      request: () => ({ method: 'DELETE' }),
      write: (w, r) => deleteOne(family, w, r),
    });
  }
  const id = opts.id as string;
  if (opts.dryRun) refuseJqDryRun(ctx);
  else refuseJq(ctx, `svc ${family.name} delete`);
  const req = { method: 'DELETE', ifMatch: opts.ifMatch } as const;
  if (opts.dryRun) return printDryRun(ctx, family, id, req);
  const what = `${family.name} ${id}`;
  if (!(await confirmed(ctx, what, opts.yes))) throw new SvcError(`not deleted: ${what} was kept (answer y to delete it, or pass --yes)`);
  const { etag } = await sendWrite(ctx, family, id, req);
  reportWrite(ctx, `deleted ${what}`, etag);
}
