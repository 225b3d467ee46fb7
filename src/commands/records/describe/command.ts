/** `svc <family> describe [field]`: the same as `svc describe <family>[.field]`. */
import type { CommandSpec } from '../../../cli/command.js';
import type { VerbCommand } from '../record-verb.js';
import { toDescribeOptions, type DescribeOptions } from './options.js';

export const describeVerb: VerbCommand<'describe'> = {
  name: 'describe',
  spec: (family): CommandSpec<DescribeOptions> => ({
    name: 'describe',
    summary: `show the fields of ${family.name} and their rules (same as 'svc describe ${family.name}')`,
    args: [{ name: 'field', help: 'one field, or a path through references such as contact.city', optional: true }],
    toOptions: (input) => toDescribeOptions(family, input),
    run: async (opts, ctx) => (await import('./run.js')).runDescribe(opts, ctx),
  }),
};
