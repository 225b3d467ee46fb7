/**
 * s10-flags: the option surface of the record verbs and the global options, swept.
 *
 * The options are read from the help itself (`svc <family> <verb> --help`, `svc --help`), never from a list
 * kept here, for a handful of families of different field types (accounts; contacts; tasks; stocktransactions,
 * an inventory family with int64 IDs and array fields; transactions, a billing family with `items`; users,
 * read-only; binfiles, read verbs only) and every verb `svc resources -o json` gives them. Each option that
 * takes a value is given hostile values (empty, blank, a leading '-', `=` forms, control characters and NUL,
 * a 10^6-character string, odd numbers, bidi, combining marks and emoji, `__proto__`, no value at the end of the
 * line), in-process against this file's own sandbox, on a command line that is otherwise valid and writes
 * nothing (writes are `--dry-run`). The sample is seeded: replay with SVC_S10_FLAGS_SEED=<n>.
 *
 * What every run is held to (README, Exit codes): an exit code of the table; no stack trace, "unexpected
 * error", "[object Object]", "undefined" or "NaN"; a refusal is one line starting `svc: ` with nothing on
 * stdout (the documented exceptions aside: a filter's caret, the count of update/delete --filter, import's rows);
 * exit 2 sends nothing (but the count and import's lookups); a bad value is refused before it reaches the
 * service (no 400 answered to it, exit 1); and an empty, blank or absurd number is not taken silently.
 *
 * Each category is one test: tests named "HELD: …" hold today; the others fail and list every case that broke
 * the rule, with its command line.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createRandom } from '../../src/util/random.js';
import { sandboxCli, type CliRun } from '../helpers/cli.js';
import { tempDir } from '../sync/support.js';
import { useSpawnedSvc } from './s7-support.js';

const SEED = process.env.SVC_S10_FLAGS_SEED ? Number(process.env.SVC_S10_FLAGS_SEED) : Math.floor(Math.random() * 2 ** 31);
const WHY = `seed ${SEED} (replay: SVC_S10_FLAGS_SEED=${SEED} npx vitest run test/attack/s10-flags-sweep.test.ts)`;

const { sandbox, run } = sandboxCli();
const spawned = useSpawnedSvc({ url: () => sandbox().instanceUrl, token: () => sandbox().token(), configPrefix: 's10-flags-' });
const dir = tempDir();

const FAMILIES = ['accounts', 'contacts', 'tasks', 'stocktransactions', 'transactions', 'users', 'binfiles'];
/** Exit codes of the README's table. */
const TABLE = new Set([0, 1, 2, 3, 4, 5, 130]);
/** How long one in-process run may take before it counts as a hang. */
const HANG_MS = 10_000;

/** One option as the help shows it. */
interface Opt {
  readonly flag: string;
  readonly short?: string;
  /** `<file>`, `[list]`, or undefined for a switch. */
  readonly meta?: string;
}

/** The options of a help text's "Options:" section. */
function optionsOf(help: string): Opt[] {
  const section = help.split(/^Options:\n/m)[1]?.split(/\n\n/)[0] ?? '';
  const out: Opt[] = [];
  for (const line of section.split('\n')) {
    const m = /^ {2}(?:(-\w), )?(--[\w-]+)(?: ([<[][^>\]]+[>\]]))?/.exec(line);
    if (m?.[2] && m[2] !== '--help' && m[2] !== '--version') out.push({ flag: m[2], ...(m[1] ? { short: m[1] } : {}), ...(m[3] ? { meta: m[3] } : {}) });
  }
  return out;
}

const MILLION = 'a'.repeat(1_000_000);
/** Hostile values, each with a label for the report. */
const VALUES: ReadonlyArray<readonly [string, string]> = [
  ['empty', ''],
  ['blank', '   '],
  ['tab', '\t'],
  ['dash', '-'],
  ['-1', '-1'],
  ['-x', '-x'],
  ['double dash', '--'],
  ['equals', '='],
  ['1.5', '1.5'],
  ['1e3', '1e3'],
  ['0x10', '0x10'],
  ['-0', '-0'],
  ['Infinity', 'Infinity'],
  ['NaN', 'NaN'],
  ['2^53+1', '9007199254740993'],
  ['1e400', '1e400'],
  ['RTL override', '\u202eevil'],
  ['combining', 'e\u0301\u0301\u0301'],
  ['emoji', '👍🏽'],
  ['__proto__', '__proto__'],
  ['constructor', 'constructor'],
  ['ESC', '\u001b[31mred'],
  ['NUL', 'a\u0000b'],
  ['CRLF', 'a\r\nb'],
  ['10^6 chars', MILLION],
];
const BLANK = new Set(['empty', 'blank', 'tab']);
/** Not a number any count, size or duration option could mean (a bare 1.5 is 1.5 s for a duration: README). */
const ABSURD_NUMBER = new Set(['1e3', '0x10', '-0', 'Infinity', 'NaN', '2^53+1', '1e400', '-1']);

/** A case: the command line, and what it tests. */
interface Case {
  readonly argv: string[];
  readonly family: string;
  readonly verb: string;
  readonly opt: Opt;
  readonly label: string;
  readonly value: string;
  readonly form: 'space' | 'equals' | 'missing' | 'switch=';
}

interface Outcome {
  readonly c: Case;
  readonly r: CliRun | undefined;
  readonly ms: number;
  readonly sent: readonly { method: string; url: string; status?: number }[];
}

const textField: Record<string, string> = {};
/** Per family, values drawn from its catalogue for the options that name fields: one it says cannot be filtered or sorted, a path to nothing. */
const fieldValues: Record<string, [string, string][]> = {};
const required: Record<string, string[]> = {};
let verbsOf: Record<string, string[]> = {};
let rows = '';
let seq = 0;

/** The command line of a verb that is valid by itself and writes nothing, in parts (an option's part goes when that option is tested). */
function base(family: string, verb: string): { flag?: string; words: string[] }[] {
  switch (verb) {
    case 'sum':
      return [{ words: ['ID'] }];
    case 'get':
    case 'exists':
      return [{ words: ['1'] }];
    case 'create':
      return [{ words: required[family] ?? [] }, { flag: '--dry-run', words: ['--dry-run'] }];
    case 'update':
      return [{ words: ['1', `${textField[family] ?? 'x'}=s10`] }, { flag: '--dry-run', words: ['--dry-run'] }];
    case 'delete':
      return [{ words: ['1'] }, { flag: '--dry-run', words: ['--dry-run'] }];
    case 'export':
      return [
        { flag: '--format', words: ['--format', 'ndjson'] },
        { flag: '--fields', words: ['--fields', 'ID'] },
      ];
    case 'import':
      return [
        { flag: '--from', words: ['--from', rows] },
        { flag: '--dry-run', words: ['--dry-run'] },
      ];
    case 'sync':
      return [
        { flag: '--into', words: ['--into', join(dir, `copy-${seq++}.sqlite`)] },
        { flag: '--fields', words: ['--fields', 'ID'] },
      ];
    case 'watch':
      return [{ words: ['--once'] }, { flag: '--fields', words: ['--fields', 'ID'] }];
    default:
      return [];
  }
}

/** A value for an option taking a file or directory: anything relative lands in this test's directory, never the repository. */
function placed(opt: Opt, value: string): string {
  const pathy = opt.meta === '<file>' || opt.meta === '<dir>';
  // '-' is standard input for the options that read; for those that write it is a file named '-' (see the findings).
  const reads = ['--from', '--data-file', '--filter-file', '--token-file', '--ca-file'].includes(opt.flag);
  if (!pathy || value === '' || (value === '-' && reads) || value.startsWith('/')) return value;
  // A directory of its own for each case, so that no case reads what another wrote.
  const own = join(dir, 'paths', String(seq++));
  mkdirSync(own, { recursive: true });
  return join(own, value);
}

function caseFor(family: string, verb: string, opt: Opt, label: string, value: string, form: Case['form']): Case {
  const parts = base(family, verb).filter((p) => p.flag !== opt.flag);
  const v = placed(opt, value);
  const words = form === 'space' ? [opt.flag, v] : form === 'equals' ? [`${opt.flag}=${v}`] : form === 'switch=' ? [`${opt.flag}=${v}`] : [opt.flag];
  const argv = form === 'missing' ? [family, verb, ...parts.flatMap((p) => p.words), ...words] : [family, verb, ...words, ...parts.flatMap((p) => p.words)];
  return { argv, family, verb, opt, label, value, form };
}

/** The command line as a shell would take it, long values cut, for the report. */
function line(argv: readonly string[]): string {
  return argv
    .map((a) => (a.length > 60 ? `${JSON.stringify(a.slice(0, 20))}…(${a.length} chars)` : /^[\w@%+=:,./-]+$/.test(a) ? a : JSON.stringify(a)))
    .join(' ');
}

const outcomes: Outcome[] = [];
const counts = { families: 0, verbs: 0, options: 0, cases: 0 };

async function timed(argv: string[]): Promise<{ r: CliRun | undefined; ms: number }> {
  const t0 = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const r = await Promise.race([run(argv), new Promise<undefined>((res) => (timer = setTimeout(() => res(undefined), HANG_MS)))]);
  clearTimeout(timer);
  return { r, ms: Date.now() - t0 };
}

beforeAll(async () => {
  const s = sandbox();
  // useTestSandbox turns recording on before each test, and this runs before the first: on here, off after.
  s.sandbox.hooks.record = true;
  mkdirSync(join(dir, 'paths'), { recursive: true });
  const random = createRandom(SEED);
  const resources = JSON.parse((await run(['resources', '-o', 'json'])).stdout) as { name: string; verbs: string[] }[];
  verbsOf = Object.fromEntries(resources.filter((r) => FAMILIES.includes(r.name)).map((r) => [r.name, [...r.verbs, 'describe']]));
  for (const f of FAMILIES) {
    const d = JSON.parse((await run(['describe', f, '-o', 'json'])).stdout) as {
      fields: { name: string; type: string; writable?: boolean; required?: boolean; pattern?: string; ref?: unknown; enum?: unknown }[];
    };
    textField[f] = d.fields.find((x) => x.type === 'string' && x.writable && !x.pattern && !x.ref && !x.enum)?.name ?? 'x';
    required[f] = d.fields.filter((x) => x.required).map((x) => `${x.name}=${x.type === 'string' ? (x.pattern ? 'EUR' : 's10') : '1'}`);
    const unsortable = d.fields.find((x) => (x as { filterable?: boolean }).filterable === false)?.name;
    const ref = d.fields.find((x) => x.ref)?.name;
    fieldValues[f] = [...(unsortable ? [['not filterable', unsortable] as [string, string]] : []), ...(ref ? [['dangling path', `${ref}.`] as [string, string]] : [])];
  }
  rows = join(dir, 'rows.csv');
  writeFileSync(rows, 'ID\n1\n');

  // Every option of every verb of every family, read from its help.
  const plan: Case[] = [];
  for (const family of FAMILIES) {
    counts.families++;
    for (const verb of verbsOf[family] ?? []) {
      counts.verbs++;
      const help = await run([family, verb, '--help']);
      expect(help.code, `${family} ${verb} --help: ${help.stderr}`).toBe(0);
      for (const opt of optionsOf(help.stdout)) {
        counts.options++;
        if (!opt.meta) {
          plan.push(caseFor(family, verb, opt, 'switch=1', '1', 'switch='));
          continue;
        }
        // accounts gets every value in both forms; the other families a seeded sample (the option list is the same
        // code, the fields differ), so the file stays within its time.
        const all = family === 'accounts';
        const named = /list|field/.test(opt.meta) ? (fieldValues[family] ?? []) : [];
        for (const [label, value] of [...VALUES, ...named]) {
          if (all || named.some(([l]) => l === label) || random.chance(0.35)) plan.push(caseFor(family, verb, opt, label, value, 'space'));
          if ((all && random.chance(0.5)) || random.chance(0.1)) plan.push(caseFor(family, verb, opt, label, value, 'equals'));
        }
        plan.push(caseFor(family, verb, opt, 'no value at the end', '', 'missing'));
      }
    }
  }
  // The global options, each on two commands (a read and an export).
  const globals = optionsOf((await run(['--help'])).stdout).filter((o) => o.meta);
  for (const opt of globals) {
    for (const [label, value] of VALUES) {
      // -o names the export's file when the value holds '.', '/' or '\': kept inside this test's directory.
      const v = opt.flag === '--output' && /[./\\]/.test(value) ? placed({ flag: '--output', meta: '<file>' }, value) : placed(opt, value);
      plan.push({ argv: ['accounts', 'count', opt.flag, v], family: 'accounts', verb: 'count', opt, label, value, form: 'space' });
      if (random.chance(0.4)) plan.push({ argv: ['accounts', 'export', '--format', 'ndjson', '--fields', 'ID', `${opt.flag}=${v}`], family: 'accounts', verb: 'export', opt, label, value, form: 'equals' });
    }
    plan.push({ argv: ['accounts', 'count', opt.flag], family: 'accounts', verb: 'count', opt, label: 'no value at the end', value: '', form: 'missing' });
  }

  for (const c of plan) {
    const before = s.sandbox.hooks.requests.length;
    const { r, ms } = await timed(c.argv);
    const sent = s.sandbox.hooks.requests.slice(before).map((q) => ({ method: q.method, url: q.url, ...(q.status === undefined ? {} : { status: q.status }) }));
    outcomes.push({ c, r, ms, sent });
    counts.cases++;
  }
  console.log(`s10-flags sweep: ${counts.families} families, ${counts.verbs} verbs, ${counts.options} options (${globals.length} global), ${counts.cases} command lines; ${WHY}`);
}, 110_000);

/** The failures of one rule, as lines for the report (at most `max`, then how many more). */
function report(bad: Outcome[], why: (o: Outcome) => string, max = 80): string {
  const seen = new Set<string>();
  const lines: string[] = [];
  for (const o of bad) {
    // One line per option and value kind is enough: families repeat it.
    const key = `${o.c.verb} ${o.c.opt.flag} ${o.c.label} ${o.c.form} ${why(o)}`;
    if (seen.has(key)) continue;
    seen.add(key);
    lines.push(`svc ${line(o.c.argv)}\n    → ${why(o)}`);
  }
  const shownLines = lines.slice(0, max);
  return `${bad.length} of ${outcomes.length} command lines (${lines.length} distinct); ${WHY}\n${shownLines.join('\n')}${lines.length > max ? `\n… and ${lines.length - max} more` : ''}`;
}

const oneLine = (s: string): string => JSON.stringify(s.length > 300 ? `${s.slice(0, 300)}…` : s);
/** The stderr with the value given (and its escaped forms) taken out, so that the words checked are svc's own. */
function ownWords(o: Outcome): string {
  let text = o.r?.stderr ?? '';
  const v = o.c.value;
  if (v) for (const form of [v, JSON.stringify(v).slice(1, -1), v.slice(0, 40)]) text = text.split(form).join('');
  return text;
}
/** Refusals whose extra stderr lines the README documents: a filter's caret, import's rows "(above)", the count of a bulk write. */
function documentedLines(lines: string[]): boolean {
  const first = lines[0] ?? '';
  const last = lines[lines.length - 1] ?? '';
  // "svc: <message>", the expression, and a caret under the fault.
  if (first.startsWith('svc: ') && lines.length <= 3 && /^ *\^+$/.test(last)) return true;
  if (!last.startsWith('svc: ')) return false;
  if (/\(above\)/.test(last)) return true;
  return lines.slice(0, -1).every((l) => /records? match/.test(l));
}
/** Requests a refusal (exit 2) may send: the count of update/delete --filter and import's lookups (README, Exit codes). */
function documentedSend(o: Outcome): boolean {
  return ['update', 'delete', 'import'].includes(o.c.verb) && o.sent.every((q) => q.method === 'POST' || q.method === 'GET');
}

describe(`the record verbs' and the global options, swept (${WHY})`, () => {
  it('HELD: every option listed in the help of every verb of the sampled families was tried (counts printed)', () => {
    expect(counts.families).toBe(FAMILIES.length);
    expect(counts.options).toBeGreaterThan(200);
    expect(outcomes.length).toBe(counts.cases);
  });

  it('HELD: every run ends within 10 s (no hang)', () => {
    const bad = outcomes.filter((o) => o.r === undefined);
    expect(bad.length === 0 ? '' : report(bad, (o) => `no answer after ${o.ms} ms`)).toBe('');
  });

  it('HELD: every exit code is one of the README table', () => {
    const bad = outcomes.filter((o) => o.r && !TABLE.has(o.r.code));
    expect(bad.length === 0 ? '' : report(bad, (o) => `exit ${o.r?.code}`)).toBe('');
  });

  it('no stack trace, "unexpected error", "[object Object]", or "undefined"/"NaN" of svc\'s own in a message', () => {
    const bad = outcomes.filter((o) => {
      const e = o.r?.stderr ?? '';
      return /^\s+at .+:\d+:\d+\)?$/m.test(e) || /unexpected error|\[object Object\]/.test(e) || /\bundefined\b|\bNaN\b/.test(ownWords(o));
    });
    expect(bad.length === 0 ? '' : report(bad, (o) => oneLine(o.r?.stderr ?? ''))).toBe('');
  });

  it('HELD: a refusal is one line starting "svc: " (documented exceptions aside), with nothing on stdout', () => {
    const bad = outcomes.filter((o) => {
      if (!o.r || o.r.code === 0) return false;
      const lines = o.r.stderr.replace(/\n$/, '').split('\n');
      const stdoutOk = o.r.stdout === '' || o.c.verb === 'watch' || o.c.verb === 'export';
      const oneOk = lines.length === 1 && (lines[0] ?? '').startsWith('svc: ');
      return !stdoutOk || !(oneOk || documentedLines(lines));
    });
    expect(bad.length === 0 ? '' : report(bad, (o) => `exit ${o.r?.code}, stderr ${oneLine(o.r?.stderr ?? '')}${o.r?.stdout ? `, stdout ${oneLine(o.r.stdout)}` : ''}`)).toBe('');
  });

  it('HELD: exit 2 sends nothing (but the count of a bulk write and import\'s lookups)', () => {
    const bad = outcomes.filter((o) => o.r?.code === 2 && o.sent.length > 0 && !documentedSend(o));
    expect(bad.length === 0 ? '' : report(bad, (o) => `exit 2 after ${o.sent.map((q) => `${q.method} ${q.url} → ${q.status ?? '?'}`).join(', ')}: ${oneLine(o.r?.stderr ?? '')}`)).toBe('');
  });

  it('a bad value is refused before it reaches the service: no run sends a request the service answers 400', () => {
    // The sandbox's own limits (a 1,000,000-character --search: "the sandbox allows at most 1,000") are the service's to
    // judge; what the catalogue already knows (a field that cannot be sorted, a path to nothing) is not.
    const bad = outcomes.filter((o) => o.sent.some((q) => q.status === 400) && !/the sandbox allows at most/.test(o.r?.stderr ?? ''));
    expect(bad.length === 0 ? '' : report(bad, (o) => `exit ${o.r?.code}: ${oneLine(o.r?.stderr ?? '')}`)).toBe('');
  });

  it('an empty or blank value is never taken as if the option were not given (exit 0)', () => {
    // --search and --jq are free text, where blanks may be meant; a tab is a fair --delimiter.
    const free = new Set(['--search', '--jq', '--delimiter']);
    // A blank name of a file is placed in this test's directory, where it is a name like any other.
    const pathy = (o: Opt): boolean => o.meta === '<file>' || o.meta === '<dir>';
    const bad = outcomes.filter((o) => o.r?.code === 0 && BLANK.has(o.c.label) && !free.has(o.c.opt.flag) && !(pathy(o.c.opt) && o.c.value !== '') && o.c.form !== 'missing');
    expect(bad.length === 0 ? '' : report(bad, (o) => `exit 0; stdout ${oneLine(o.r?.stdout ?? '')}`)).toBe('');
  });

  it('a number option (<n>, <duration>, <k/n>) never takes 1e3, 0x10, -0, -1, Infinity, NaN, 2^53+1 or 1e400 (exit 0)', () => {
    const numeric = (o: Opt): boolean => /^<(n|duration|k\/n|rate)>$/.test(o.meta ?? '');
    const bad = outcomes.filter((o) => o.r?.code === 0 && numeric(o.c.opt) && ABSURD_NUMBER.has(o.c.label));
    expect(bad.length === 0 ? '' : report(bad, (o) => `exit 0; stdout ${oneLine(o.r?.stdout ?? '')}`)).toBe('');
  });

  it('HELD: an option that takes no value, given one (--dry-run=1), is exit 2 naming it', () => {
    const bad = outcomes.filter((o) => o.c.form === 'switch=' && (o.r?.code !== 2 || !o.r.stderr.includes(o.c.opt.flag)));
    expect(bad.length === 0 ? '' : report(bad, (o) => `exit ${o.r?.code}: ${oneLine(o.r?.stderr ?? '')}`)).toBe('');
  });

  it('HELD: an option given no value at the end of the line is exit 2 naming it, one line', () => {
    const bad = outcomes.filter((o) => o.c.form === 'missing' && !o.c.opt.meta?.startsWith('[') && (o.r?.code !== 2 || !o.r.stderr.includes(o.c.opt.flag) || o.r.stderr.trim().split('\n').length !== 1));
    expect(bad.length === 0 ? '' : report(bad, (o) => `exit ${o.r?.code}: ${oneLine(o.r?.stderr ?? '')}`)).toBe('');
  });
});

describe(`the built svc, spawned as a user runs it (${WHY})`, () => {
  it('HELD: a seeded sample of 16 swept command lines ends the same as node bin/svc.js (exit code; a refusal\'s stderr word for word)', async () => {
    const random = createRandom(SEED ^ 0x51051);
    // argv cannot carry NUL, nor one word past 128 KiB; writes to files are left to the in-process runs.
    const pool = outcomes.filter(
      (o) => o.r && !['sync', 'export', 'watch', 'import'].includes(o.c.verb) && o.c.argv.every((a) => !a.includes('\0') && a.length < 100_000 && !a.includes(dir)),
    );
    const refusals = pool.filter((o) => o.r?.code !== 0);
    const sample = [...Array.from({ length: 12 }, () => random.pick(refusals)), ...Array.from({ length: 4 }, () => random.pick(pool))];
    const differ: string[] = [];
    for (const o of sample) {
      const e = await spawned.run(o.c.argv);
      if (e.signal) differ.push(`svc ${line(o.c.argv)}: killed by ${e.signal} after ${e.ms} ms`);
      else if (e.code !== o.r?.code || (e.code !== 0 && e.stderr !== o.r.stderr)) differ.push(`svc ${line(o.c.argv)}: spawned exit ${e.code} ${oneLine(e.stderr)}, in-process exit ${o.r?.code} ${oneLine(o.r?.stderr ?? '')}`);
    }
    console.log(`s10-flags: spawned ${sample.length} command lines (${WHY})`);
    expect(differ.join('\n')).toBe('');
  }, 19_000);
});
