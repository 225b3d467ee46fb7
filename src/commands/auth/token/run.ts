/** `svc auth token`: a currently valid token and a newline, nothing else (a browser sign-in's is renewed first when it is about to expire); exit 4 when there is none. */
import type { NoOptions } from '../../../cli/command.js';
import type { Context } from '../../../cli/context.js';
import { connectWithToken } from '../shared.js';

export async function runAuthToken(_opts: NoOptions, ctx: Context): Promise<void> {
  const { conn, token } = await connectWithToken(ctx);
  const value = conn.oauth ? await conn.oauth.current() : token.token;
  await ctx.emit({ kind: 'text', text: `${value}\n` });
}
