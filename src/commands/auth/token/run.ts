/** `svc auth token`: the token and a newline, nothing else; exit 4 when there is none. */
import type { NoOptions } from '../../../cli/command.js';
import type { Context } from '../../../cli/context.js';
import { connectWithToken } from '../shared.js';

export async function runAuthToken(_opts: NoOptions, ctx: Context): Promise<void> {
  const { token } = await connectWithToken(ctx);
  await ctx.emit({ kind: 'text', text: `${token.token}\n` });
}
