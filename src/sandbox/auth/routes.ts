import type { RequestInfo, SandboxContext } from '../context.js';
import { HttpError } from '../errors.js';
import type { Reply } from '../http/respond.js';

/** The authentication interface: `/<instance>/auth/v1/…`. */
export async function handleAuth(_ctx: SandboxContext, info: RequestInfo): Promise<Reply> {
  throw new HttpError(404, `Not Found: ${info.method} /${info.segments.join('/')}`);
}
