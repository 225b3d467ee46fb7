/** `svc whoami`: `GET {auth}/` with the token; exit 4 when there is none or the service refuses it. */
import type { NoOptions } from '../../../cli/command.js';
import type { Context } from '../../../cli/context.js';
import { invalidTokenError } from '../shared.js';
import { sessionView, type SessionInfo } from './render.js';

export async function runWhoami(_opts: NoOptions, ctx: Context): Promise<void> {
  const conn = await ctx.connect({ token: true });
  const res = await conn.client.request({ method: 'GET', root: 'auth', path: '/', accept: [401] });
  if (res.status === 401) {
    await res.body.dump();
    throw invalidTokenError(conn);
  }
  await ctx.emit(sessionView(await res.json<SessionInfo>(), conn.target.instanceUrl));
}
