/** The request of `svc <family> get ID`: a GET of the record, its query parameters and If-None-Match. */
import type { RequestSpec } from '../../../http/client.js';
import type { GetOptions } from './options.js';

export function toGetRequest(opts: GetOptions): RequestSpec {
  const query: Record<string, string[]> = {};
  if (opts.expand) query['expand[]'] = [...opts.expand];
  if (opts.extdata) query.extdata = ['1'];
  if (opts.tags) query.tags = ['1'];
  const headers: Record<string, string> = opts.ifNoneMatch ? { 'If-None-Match': opts.ifNoneMatch } : {};
  return { method: 'GET', root: 'api', path: `/${opts.family.name}/${opts.id}`, query, headers, accept: [304] };
}
