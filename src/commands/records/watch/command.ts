/** `svc <family> watch`: its options and help (the typed options: options.ts). */
import type { CommandSpec } from '../../../cli/command.js';
import { ExitCode } from '../../../errors.js';
import { filterOptionSpecs } from '../filter-flags.js';
import type { VerbCommand } from '../record-verb.js';
import { DEFAULT_RECONCILE_EVERY, toWatchOptions, type WatchOptions } from './options.js';

const NOTES = [
  'One line per change on stdout: {"op":"upsert","family":…,"record":{…}} or {"op":"delete",…,"record":{"ID":n}}.',
  'The first run (no cursor file, no --since) writes every matching record as an upsert, then the changes;',
  '--since now starts with the changes only. A record that stops matching the filter is a delete.',
  `Deletions are found by comparing IDs every --reconcile-every polls (default ${DEFAULT_RECONCILE_EVERY}; counted across runs).`,
  'With --cursor-file a restart after Ctrl-C or SIGTERM neither misses nor repeats a change; after a crash',
  '(kill -9) or a reader that closed stdout, it may repeat lines of the poll that was running, never miss one.',
  `Exit codes: ${ExitCode.ok} --once done or stdout closed, ${ExitCode.failure} the service kept failing (cursor saved), ${ExitCode.usage} bad usage or cursor file, ${ExitCode.auth} not signed in, or the token or a permission refused (at once), ${ExitCode.interrupted} interrupted (cursor saved).`,
].join('\n');

export const watchVerb: VerbCommand<'watch'> = {
  name: 'watch',
  spec: (family): CommandSpec<WatchOptions> => ({
    name: 'watch',
    summary: `follow changes to ${family.name} records: one NDJSON line per upsert or delete, polling lastmodified`,
    options: [
      ...filterOptionSpecs,
      { flags: '--fields <list>', help: 'fields of each record: a,b,extdata.NAME,alias=path (default: every field; the ID is always there; no paths through a reference such as contact.city: their changes do not show)' },
      { flags: '--interval <duration>', help: 'time between polls, e.g. 500ms, 10s, 1m (default 10s)' },
      { flags: '--lag <duration>', help: 'ask again for changes this far behind the newest seen, for clock skew and long transactions (default 5m; 0 for none)' },
      { flags: '--reconcile-every <n>', help: `compare IDs to find deletions every n polls (default ${DEFAULT_RECONCILE_EVERY}; 1: every poll)` },
      { flags: '--since <time>', help: 'on the first run, start from this time: 2026-11-01, 2026-11-01T08:30Z, today, now, -2h, or a duration ago (2h)' },
      { flags: '--cursor-file <file>', help: 'keep the position here (written atomically after each poll), to resume after a restart' },
      { flags: '--once', help: 'one poll, then exit (for cron and tests)' },
      { flags: '--page-size <n>', help: 'records per request, 1 to 10000 (default 1000); halved while a page keeps failing' },
    ],
    notes: NOTES,
    examples: [
      `svc ${family.name} watch --since now | jq -c 'select(.op == "delete") | .record.ID'`,
      `svc ${family.name} watch --filter 'type = CUSTOMER' --fields ID,lastname --cursor-file ${family.name}.cursor`,
      `svc ${family.name} watch --cursor-file ${family.name}.cursor --once >> changes.ndjson   # in cron`,
    ],
    toOptions: ({ flags }) => toWatchOptions(family, flags),
    run: async (opts, ctx) => (await import('./run.js')).runWatchCommand(opts, ctx),
  }),
};
