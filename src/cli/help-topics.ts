import { exitCodeTable } from '../errors.js';
import type { TextView } from '../output/view.js';

/** Help pages beyond the commands' own help: `svc help <topic>`. */
export const helpTopics: Readonly<Record<string, { summary: string; page: () => string | Promise<string> }>> = {
  'exit-codes': {
    summary: 'the exit codes svc returns, for scripts',
    page: () => {
      const width = Math.max(...exitCodeTable.map((r) => r.name.length));
      const rows = exitCodeTable.map((r) => `  ${String(r.code).padStart(3)}  ${r.name.padEnd(width)}  ${r.meaning}`);
      return [
        'Exit codes',
        '',
        'svc ends with one of these codes. Errors print one line on stderr naming',
        'the problem and the fix; stdout then carries nothing but what a command',
        'streamed or summed up before it failed (query --all, export to stdout, watch,',
        'the families svc sync finished) and the JSON body of an error status, which',
        'svc api prints as its answer.',
        '',
        ...rows,
        '',
      ].join('\n');
    },
  },
  filters: {
    summary: 'the --filter language: fields, operators, values, dates, examples',
    // Loaded only when asked for: the page is generated from the filter module's tables.
    page: async () => (await import('../filter/help.js')).filterHelp,
  },
};

/** The page of a topic, or undefined. */
export async function helpTopicView(topic: string): Promise<TextView | undefined> {
  // Own topics only: `svc help constructor` is no topic.
  const t = Object.hasOwn(helpTopics, topic) ? helpTopics[topic] : undefined;
  return t ? { kind: 'text', text: await t.page() } : undefined;
}
