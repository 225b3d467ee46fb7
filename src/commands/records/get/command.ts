/** `svc <family> get ID`: its options and help (the typed options: options.ts). */
import type { CommandSpec } from '../../../cli/command.js';
import { expandHelp } from '../../../records/expand.js';
import type { VerbCommand } from '../record-verb.js';
import { toGetOptions, type GetOptions } from './options.js';

export const getVerb: VerbCommand<'get'> = {
  name: 'get',
  spec: (family): CommandSpec<GetOptions> => ({
    name: 'get',
    summary: `show one ${family.name} record`,
    args: [{ name: 'id', help: 'the record ID' }],
    options: [
      { flags: '--expand <list>', help: expandHelp(family) },
      { flags: '--extdata', help: 'add the extension fields (pseudo field extdata)' },
      { flags: '--tags', help: 'add the tags (pseudo field tags)' },
      { flags: '--if-none-match <etag>', help: 'answer "unchanged" (exit 0, nothing on stdout) when the record still has this ETag' },
      { flags: '--tz <zone>', help: "time zone for dates on a terminal (default: this machine's)" },
    ],
    toOptions: ({ args, flags }) => toGetOptions(family, String(args[0]), flags),
    run: async (opts, ctx) => (await import('./run.js')).runGet(opts, ctx),
  }),
};
