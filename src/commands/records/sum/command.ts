/** `svc <family> sum FIELD [--by FIELD]`: its options and help (the typed options: options.ts). */
import type { ResourceFamily } from '../../../catalogue/index.js';
import type { CommandSpec } from '../../../cli/command.js';
import { filterOptionSpecs } from '../filter-flags.js';
import type { VerbCommand } from '../record-verb.js';
import { toSumOptions, type SumOptions } from './options.js';

const NOTES = `The total is exact: each value is added as the decimal the service sent, so
120 records of 1.1 sum to 132 (not 131.99999999999972). Null values are
skipped and counted. In JSON the sum is a number when that number's text is
the exact total, else a string holding it (more digits than a double keeps).
Integers beyond 2^53 arrive from the service as JSON numbers and may already
be rounded before svc sees them.`;

function examples(family: ResourceFamily): string[] {
  const amount = family.fields.find((x) => x.type === 'double')?.name ?? 'ID';
  const group = family.fields.find((x) => x.enum?.some((e) => e.name !== undefined))?.name;
  const lines = [`svc ${family.name} sum ${amount} --filter 'ID > 100'`];
  if (group) lines.push(`svc ${family.name} sum ${amount} --by ${group} -o csv`);
  return lines;
}

export const sumVerb: VerbCommand<'sum'> = {
  name: 'sum',
  spec: (family): CommandSpec<SumOptions> => ({
    name: 'sum',
    summary: `total a numeric field over ${family.name} records, filtered, optionally per group`,
    args: [{ name: 'field', help: 'the numeric field to total (int16, int32, int64 or double)' }],
    options: [
      ...filterOptionSpecs,
      { flags: '--by <field>', help: 'one total per value of this field, sorted by that value' },
      { flags: '--page-size <n>', help: 'records per request (default 1000)' },
    ],
    notes: NOTES,
    examples: examples(family),
    toOptions: ({ args, flags }) => toSumOptions(family, String(args[0]), flags),
    run: async (opts, ctx) => (await import('./run.js')).runSum(opts, ctx),
  }),
};
