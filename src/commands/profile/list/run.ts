/** `svc profile list`: one row per profile, the current one marked; a hint on a terminal when there are none. */
import type { NoOptions } from '../../../cli/command.js';
import type { Context } from '../../../cli/context.js';
import type { RecordsView } from '../../../output/view.js';
import { shownUrl } from '../secrets.js';

export async function runProfileList(_opts: NoOptions, ctx: Context): Promise<void> {
  const profiles = await ctx.profiles();
  const current = profiles.current();
  const rows = profiles.list().map((p) => ({ current: p.name === current, ...p, url: shownUrl(p.url) }));
  if (rows.length === 0 && ctx.deps.stderr.isTTY) {
    ctx.deps.stderr.write("no profiles yet: add one with 'svc profile add NAME --url URL' (or run 'svc sandbox start')\n");
  }
  const view: RecordsView = {
    kind: 'records',
    columns: [
      { key: 'current', text: (v) => (v ? '*' : '') },
      { key: 'name' },
      { key: 'url' },
      { key: 'user', text: (v) => (typeof v === 'string' ? v : '') },
    ],
    rows,
  };
  await ctx.emit(view);
}
