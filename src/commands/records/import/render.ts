/**
 * What `svc <family> import` shows: the invalid rows (at most 20 lines, then
 * a count), the plan of --dry-run (how many of each, the first rows of each
 * with the request they would send), and the summary's parts.
 */
import type { ResourceFamily } from '../../../catalogue/index.js';
import type { RowPlan } from '../../../import/plan.js';
import type { Tally } from '../write-bulk.js';
import { PLAN_SAMPLE, requestLine, writeHeaders } from '../write-dry-run.js';
import { writePath } from '../write-send.js';

/** Lines of invalid rows shown at most. */
const SHOWN_PROBLEMS = 20;

/** Text cut to one short line for a message. */
function short(text: string, max = 300): string {
  const flat = text.replace(/[\u0000-\u001f\u007f]/g, ' ');
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

/** The invalid rows, one problem a line, at most 20 lines, then what is left. */
export function invalidRowsText(invalid: readonly Extract<RowPlan, { kind: 'invalid' }>[]): string {
  const lines = invalid.flatMap((p) => p.problems.map((problem) => `  line ${p.row.line}: ${short(problem)}\n`));
  const shown = lines.slice(0, SHOWN_PROBLEMS).join('');
  const rest = lines.length - SHOWN_PROBLEMS;
  return rest > 0 ? `${shown}  … and ${rest} more problem${rest === 1 ? '' : 's'}\n` : shown;
}

/** The closing line of an import with failed or unknown rows: what --resume does for each. */
export function failureMessage(t: Tally, rows: number, results: string | undefined, key: string | undefined): string {
  const { failed, unknown } = t.counts;
  const have = unknown === 1 ? 'has' : 'have';
  const unknownText = failed > 0 ? `${unknown} ${have} an unknown outcome` : `${unknown} of ${rows} rows ${have} an unknown outcome`;
  const parts = [failed > 0 ? `${failed} of ${rows} rows failed` : '', unknown > 0 ? unknownText : ''].filter(Boolean);
  const where = results ? ` (see ${results})` : '';
  const retry = failed > 0 ? (results ? '; --resume retries the failed ones' : '; give --results FILE to be able to resume') : '';
  const check = unknown === 0 ? '' : key !== undefined ? (results ? '; --resume looks the unknown ones up by key again' : `; run the import again to look them up by ${key} again (it creates only those still missing)`) : '; check whether the unknown ones were created (or import with --key, so that svc can)';
  return `${parts.join(', ')}${where}${retry}${check}`;
}

/** The summary's parts, in order: count, word, shown when zero. */
export function summaryParts(t: Tally, doneBefore: number): [number, string, boolean][] {
  const c = t.counts;
  return [
    [c.created, 'created', true],
    [c.updated, 'updated', true],
    [c.unchanged, 'unchanged', true],
    [c.failed, 'failed', true],
    [c.unknown, 'unknown', false],
    [c.skipped, 'skipped (invalid)', false],
    [doneBefore, 'done before (--resume)', false],
  ];
}

/** How a plan's group of rows is named. */
const GROUPS: readonly [RowPlan['kind'], string, string][] = [
  ['create', 'create', 'create'],
  ['update', 'update', 'update'],
  ['unchanged', 'unchanged (not sent)', 'unchanged'],
  ['found', 'created before (found by key)', 'created before'],
  ['fail', 'failing (not sent)', 'failing'],
  ['invalid', 'invalid (skipped)', 'invalid'],
];

function sampleLine(family: ResourceFamily, p: RowPlan, url: (path: string) => string): string {
  switch (p.kind) {
    case 'create':
      return requestLine(url(writePath(family, undefined)), { method: 'PUT', json: p.row.body });
    case 'update':
      return requestLine(url(writePath(family, p.id)), { method: 'PATCH', json: p.row.body });
    case 'unchanged':
    case 'found':
      return `${family.name} ${p.id}`;
    case 'fail':
      return short(p.error);
    case 'invalid':
      return short(p.problems.join('; '));
  }
}

/** The plan of --dry-run: counts, the headers every write carries, and the first rows of each kind. */
export function planText(family: ResourceFamily, plans: readonly RowPlan[], url: (path: string) => string, head: string): string {
  const count = (kind: RowPlan['kind']): number => plans.filter((p) => p.kind === kind).length;
  const counts = GROUPS.map(([kind, , word]) => [count(kind), word] as const).filter(([n], i) => n > 0 || i < 2);
  const plural = (n: number, word: string): string => (n !== 1 && (word === 'create' || word === 'update') ? `${word}s` : word);
  const out = [`${head}: ${counts.map(([n, word]) => `${n} ${plural(n, word)}`).join(', ')}\n`];
  out.push(`each write carries: ${writeHeaders({ json: {} }).join('; ')}\n`);
  for (const [kind, word] of GROUPS) {
    const group = plans.filter((p) => p.kind === kind);
    if (group.length === 0) continue;
    out.push(`\n${word} (${group.length}):\n`);
    for (const p of group.slice(0, PLAN_SAMPLE)) out.push(`  line ${p.row.line}: ${sampleLine(family, p, url)}\n`);
    if (group.length > PLAN_SAMPLE) out.push(`  … and ${group.length - PLAN_SAMPLE} more\n`);
  }
  return out.join('');
}
