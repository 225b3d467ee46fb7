/** `svc auth status`: exit 4 when there is no token or the service refuses it. */
import type { NoOptions } from '../../../cli/command.js';
import type { Context } from '../../../cli/context.js';
import { connectWithToken, invalidTokenError, verifyToken } from '../shared.js';
import { authStatusView } from './render.js';

export async function runAuthStatus(_opts: NoOptions, ctx: Context): Promise<void> {
  const { conn, token } = await connectWithToken(ctx);
  if (!(await verifyToken(conn))) throw invalidTokenError(conn);
  await ctx.emit(authStatusView(conn.target, token, ctx.deps.now(), conn.oauth?.grant()));
}
