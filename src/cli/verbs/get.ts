import type { Command } from 'commander';
import type { GetFlags } from '../records/get-run.js';
import type { VerbSpec } from "../legacy-verb.js";

/** `svc <family> get ID`. */
export const getVerb: VerbSpec = {
  name: 'get',
  summary: (f) => `show one ${f.name} record`,
  applies: (f) => f.operations.includes('get'),
  configure: (cmd, family, deps) => {
    cmd
      .argument('<id>', 'the record ID')
      .option('--expand <list>', 'expand composite and bin file fields')
      .option('--extdata', 'add the extension fields (pseudo field extdata)')
      .option('--tags', 'add the tags (pseudo field tags)')
      .option('--if-none-match <etag>', 'answer "unchanged" (exit 0, nothing on stdout) when the record still has this ETag')
      .option('--tz <zone>', "time zone for dates on a terminal (default: this machine's)")
      .action(async (id: string, flags: GetFlags, self: Command) => {
        const { runGet } = await import('../records/get-run.js');
        await runGet(self, deps, family, id, flags);
      });
  },
};

/** `svc <family> exists ID`. */
export const existsVerb: VerbSpec = {
  name: 'exists',
  summary: (f) => `exit 0 when the ${f.name} record exists, 3 when not (nothing printed)`,
  applies: (f) => f.operations.includes('exists'),
  configure: (cmd, family, deps) => {
    cmd.argument('<id>', 'the record ID').action(async (id: string, _flags: unknown, self: Command) => {
      const { runExists } = await import('../records/get-run.js');
      await runExists(self, deps, family, id);
    });
  },
};
