/** `svc <family> exists ID`: a HEAD of the record; exit 0 when it exists, 3 when not, nothing on stdout. */
import type { Context } from '../../../cli/context.js';
import { ExitCode, SvcError } from '../../../errors.js';
import type { ExistsOptions } from './options.js';

export async function runExists(opts: ExistsOptions, ctx: Context): Promise<void> {
  const { client } = await ctx.connect({ token: true });
  const res = await client.request({ method: 'HEAD', root: 'api', path: `/${opts.family.name}/${opts.id}`, accept: [404] });
  await res.body.dump();
  // An empty message: the answer is the exit code alone.
  if (res.status === 404) throw new SvcError('', ExitCode.notFound);
}
