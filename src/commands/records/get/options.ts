/** `svc <family> get ID`'s typed options and how its arguments and flags become them. */
import { etagFlag } from '../etag-flag.js';
import type { ResourceFamily } from '../../../catalogue/index.js';
import { parseExpand } from '../../../records/expand.js';
import { bool, str } from '../../../cli/command.js';
import { UsageError } from '../../../errors.js';
import { parseRecordId } from '../../../records/record-id.js';
import { toTimeZone } from '../tz-flag.js';

export interface GetOptions {
  readonly family: ResourceFamily;
  readonly id: string;
  readonly expand?: readonly string[];
  /** Add the extension fields (the family's get takes `extdata`). */
  readonly extdata: boolean;
  /** Add the tags (the family's get takes `tags`). */
  readonly tags: boolean;
  readonly ifNoneMatch?: string;
  readonly tz?: string;
}

/** Flags → GetOptions: the ID checked, --extdata and --tags only where the family's get takes them. */
export function toGetOptions(family: ResourceFamily, id: string, flags: Readonly<Record<string, unknown>>): GetOptions {
  const opts = { family, id: parseRecordId(id), extdata: bool(flags, 'extdata'), tags: bool(flags, 'tags') };
  for (const param of ['extdata', 'tags'] as const) {
    if (opts[param] && !family.getParams.includes(param)) {
      throw new UsageError(`${family.name} records have no ${param} to show; --${param} works on families whose get lists it (see 'svc describe ${family.name}')`);
    }
  }
  const expand = str(flags, 'expand');
  const ifNoneMatch = etagFlag('--if-none-match', str(flags, 'ifNoneMatch'));
  const tz = toTimeZone(flags);
  return {
    ...opts,
    ...(expand !== undefined ? { expand: parseExpand(family, expand) } : {}),
    ...(ifNoneMatch ? { ifNoneMatch } : {}),
    ...(tz !== undefined ? { tz } : {}),
  };
}
