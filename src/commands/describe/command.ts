/** `svc describe <path>`: a resource, a field or a path through references, checked against the catalogue. */
import type { CommandSpec } from '../../cli/command.js';
import { toDescribeOptions, type DescribeOptions } from './options.js';

export const describeSpec: CommandSpec<DescribeOptions> = {
  name: 'describe',
  summary: "explain a resource or a field, like 'kubectl explain'",
  args: [{ name: 'path', help: 'a resource (accounts), a field (accounts.type) or a path (accounts.contact.city)' }],
  examples: ['svc describe accounts', 'svc describe accounts.type', 'svc describe accounts -o json'],
  toOptions: ({ args }) => toDescribeOptions(String(args[0])),
  run: async (opts, ctx) => (await import('./run.js')).runDescribe(opts, ctx),
};
