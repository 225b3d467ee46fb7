import type { Command } from 'commander';
import type { SumFlags } from '../records/sum-run.js';
import type { ResourceFamily } from '../../catalogue/index.js';
import type { VerbSpec } from "../legacy-verb.js";
import { filterOptions } from './query.js';

const HELP = `
The total is exact: each value is added as the decimal the service sent, so
120 records of 1.1 sum to 132 (not 131.99999999999972). Null values are
skipped and counted. In JSON the sum is a number when that number's text is
the exact total, else a string holding it (more digits than a double keeps).
Integers beyond 2^53 arrive from the service as JSON numbers and may already
be rounded before svc sees them.
`;

function examples(family: ResourceFamily): string {
  const amount = family.fields.find((x) => x.type === 'double')?.name ?? 'ID';
  const group = family.fields.find((x) => x.enum?.some((e) => e.name !== undefined))?.name;
  const lines = [`svc ${family.name} sum ${amount} --filter 'ID > 100'`];
  if (group) lines.push(`svc ${family.name} sum ${amount} --by ${group} -o csv`);
  return `\nExamples:\n${lines.map((l) => `  ${l}\n`).join('')}`;
}

/** `svc <family> sum FIELD [--by FIELD]`: an exact total of a numeric field over every matching record. */
export const sumVerb: VerbSpec = {
  name: 'sum',
  summary: (f) => `total a numeric field over ${f.name} records, filtered, optionally per group`,
  applies: (f) => f.operations.includes('list'),
  configure: (cmd, family, deps) => {
    filterOptions(cmd.argument('<field>', 'the numeric field to total (int16, int32, int64 or double)'))
      .option('--by <field>', 'one total per value of this field, sorted by that value')
      .option('--page-size <n>', 'records per request (default 1000)')
      .addHelpText('after', `${HELP}${examples(family)}`)
      .action(async (field: string, flags: SumFlags, self: Command) => {
        const { runSum } = await import('../records/sum-run.js');
        await runSum(self, deps, family, field, flags);
      });
  },
};
