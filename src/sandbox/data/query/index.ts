import type { ResourceFamily } from '../../../catalogue/index.js';
import type { SandboxContext, Session } from '../../context.js';
import { HttpError } from '../../errors.js';
import type { Reply } from '../../http/respond.js';

/** The query operation (POST on a collection). */
export function runQuery(_ctx: SandboxContext, _session: Session, family: ResourceFamily, _body: unknown): Reply {
  throw new HttpError(501, `query on ${family.name} is not implemented yet`);
}
