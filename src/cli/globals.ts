/**
 * The options every command accepts, as data (shown on the root; program.ts
 * declares them, hidden, on every command below it too, so they may be given
 * before the command word, between a family and its verb, or after the verb),
 * and their plain typed form. program.ts reads them from commander once per run.
 */
import { outputFormats, resolveFormat } from '../output/format.js';
import type { OptionSpec } from './option-spec.js';
import { UsageError } from '../errors.js';
import { shown } from '../util/shown.js';
import { MAX_TIMER_MS, parseDuration } from '../util/duration.js';

/**
 * An empty or blank value (`--timeout "$T"` with T unset) is a mistake, never the option left out: refused
 * naming the option and the fix, as it is parsed (before anything is sent or written). An empty --url or
 * --profile is refused where it is read, in words of the command (connection.ts, profile add).
 */
function given(flag: string, what: string, check?: (v: string) => unknown): (v: string) => unknown {
  return (v) => {
    if (v.trim() === '') {
      throw new UsageError(`${flag} is given ${v === '' ? 'an empty' : 'a blank'} value (an unset variable?); give ${what}, or leave ${flag} out`);
    }
    return check ? check(v) : v;
  };
}

/** The most tries after a failure --retries takes (README: 0 to 20). */
export const MAX_RETRIES = 20;

/** --retries N: a whole number from 0 to MAX_RETRIES, in plain digits (not 0x10, 1e1, -0 or blanks). */
export function parseRetries(text: string): number {
  const n = /^\d{1,3}$/.test(text) ? Number(text) : NaN;
  if (!(n >= 0 && n <= MAX_RETRIES)) throw new UsageError(`invalid --retries '${shown(text, 40)}'; use a whole number from 0 to ${MAX_RETRIES}`);
  return n;
}

export const globalOptionSpecs: readonly OptionSpec[] = [
  {
    flags: '-o, --output <format>',
    help: `output format: ${outputFormats.join(', ')} (default: table on a terminal, json otherwise); for export, also the file to write`,
    // A file path passes here (export writes it); commands that print check the format when they run.
    parse: (v, previous) => {
      // Given twice (`--output y.dat -o csv`), the last would win without a word: a file or a format lost.
      if (previous !== undefined && previous !== v) throw new UsageError(outputGivenTwice(String(previous), v));
      return /[./\\]/.test(v) ? v : resolveFormat(v, false);
    },
  },
  { flags: '--no-color', help: 'no colour, even on a terminal (NO_COLOR works too)' },
  { flags: '--no-header', help: 'no header line in table, csv and tsv output' },
  { flags: '--delimiter <char>', help: "csv field separator (default ','; the service's own export uses ';')" },
  { flags: '--crlf', help: 'csv and tsv lines end in CRLF instead of LF' },
  { flags: '--jq <expression>', help: "filter JSON output through jq, e.g. --jq '.[].lastname' (-o json is the default then; strings are printed raw)" },
  { flags: '--no-pager', help: 'tables on a terminal are not sent through $SVC_PAGER / $PAGER (default: less -FRX)' },
  { flags: '--profile <name>', help: 'the profile to use (default: $SVC_PROFILE, else the one chosen with svc profile use)' },
  { flags: '--url <instance-url>', help: 'an instance URL to use without a profile, e.g. https://erp.example.com/acme (or $SVC_URL)' },
  { flags: '--token-file <file>', help: 'read the token from this file (see also $SVC_TOKEN, $SVC_TOKEN_FILE)', parse: given('--token-file', 'the file the token is in') },
  {
    flags: '--timeout <duration>',
    help: 'longest wait for one answer, e.g. 30s (default 30s)',
    // Checked here too, so a bad one is refused before anything is written (connection.ts reads it).
    parse: given('--timeout', 'a duration such as 30s', (v) => (parseDuration(v, '--timeout', MAX_TIMER_MS), v)),
  },
  { flags: '--retries <n>', help: 'tries after a failed idempotent request (default 3)', parse: given('--retries', `a whole number from 0 to ${MAX_RETRIES}`, (v) => (parseRetries(v), v)) },
  { flags: '--ca-file <file>', help: 'also trust the CA certificates in this PEM file (see also $NODE_EXTRA_CA_CERTS)', parse: given('--ca-file', 'a PEM file') },
  { flags: '-v, --verbose', help: 'log each HTTP request to stderr, secrets redacted (or SVC_DEBUG=http)' },
];

/** The refusal of -o given twice (at one level or two: `svc -o csv accounts query -o json`). */
export function outputGivenTwice(first: string, second: string): string {
  return `-o/--output given twice ('${shown(first, 60)}' and '${shown(second, 60)}'); give it once (for export: the file with --output-file FILE, the format with --format)`;
}

/** The global options of one run, as plain values. */
export interface GlobalOptions {
  /** `-o`: a format name, or (export) a file path. */
  readonly output?: string;
  readonly color: boolean;
  readonly header: boolean;
  readonly delimiter?: string;
  readonly crlf: boolean;
  /** `--jq`: a jq expression JSON output goes through. */
  readonly jq?: string;
  /** False with `--no-pager`. */
  readonly pager: boolean;
  readonly profile?: string;
  readonly url?: string;
  readonly tokenFile?: string;
  readonly timeout?: string;
  readonly retries?: string;
  readonly caFile?: string;
  readonly verbose: boolean;
}

/** Commander's merged option values → GlobalOptions (the one place that reads them). */
export function toGlobals(values: Readonly<Record<string, unknown>>): GlobalOptions {
  const s = (k: string): Record<string, string> => (typeof values[k] === 'string' ? { [k]: values[k] as string } : {});
  return {
    ...s('output'),
    ...s('delimiter'),
    ...s('profile'),
    ...s('url'),
    ...s('tokenFile'),
    ...s('timeout'),
    ...s('retries'),
    ...s('caFile'),
    ...s('jq'),
    color: values.color !== false,
    header: values.header !== false,
    crlf: values.crlf === true,
    pager: values.pager !== false,
    verbose: values.verbose === true,
  };
}

/** Whether a global option's flags take a value (`<value>` or `[value]`). */
function takesValue(spec: OptionSpec): boolean {
  return /[<[]/.test(spec.flags);
}

/**
 * The first command word of a command line, skipping the global options and
 * their values as commander reads them (`-o csv`, `-ocsv`, `-vo csv`,
 * `--output=csv`, `--output csv`, `--`). Derived from the options' data, so it
 * cannot drift from what commander parses; program.ts uses it only to leave
 * out parts of the tree a command line cannot reach (commander still parses
 * everything). Undefined when help is asked for before it (`--help accounts`
 * is the root's help, which lists the whole tree).
 */
export function firstCommandWord(argv: readonly string[]): string | undefined {
  const withValue = new Set(globalOptionSpecs.filter(takesValue).flatMap((o) => o.flags.split(/[ ,]+/).filter((f) => f.startsWith('-'))));
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] ?? '';
    if (a === '--') return argv[i + 1];
    if (!a.startsWith('-') || a === '-') return a;
    if (a === '--help') return undefined;
    if (a.startsWith('--')) {
      if (!a.includes('=') && withValue.has(a)) i++;
      continue;
    }
    // A cluster of short flags: the first that takes a value takes the rest of the word, or the next word.
    for (let k = 1; k < a.length; k++) {
      if (a[k] === 'h') return undefined;
      if (withValue.has(`-${a[k]}`)) {
        if (k === a.length - 1) i++;
        break;
      }
    }
  }
  return undefined;
}
