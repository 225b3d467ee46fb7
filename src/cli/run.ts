import type { CommanderError } from 'commander';
import { ExitCode, SvcError } from '../errors.js';
import { shown } from '../util/shown.js';
import { version } from '../version.js';
import type { Deps } from './deps.js';
import { isFullBuildNeeded, NEEDS_FULL_BUILD } from './help-build.js';

function isCommanderError(err: unknown): err is CommanderError {
  const code = err instanceof Error ? (err as Error & { code?: unknown }).code : undefined;
  return typeof code === 'string' && code.startsWith('commander.');
}

/** Commander's message in svc's style: one line, lower-case, with the fix. */
export function reshapeCommanderMessage(err: CommanderError): string {
  const path = (err as CommanderError & { commandPath?: string }).commandPath ?? 'svc';
  // commander suggests for an unknown command that looks like an option (after `--`) by cutting the
  // candidates' first two characters ('help' → '--lp'): no suggestion then.
  const optionLike = err.code === 'commander.unknownCommand' && /^error: unknown command '-/.test(err.message);
  const message = err.message
    .replace(/^error: /, '')
    .replace(/\n?\(Did you mean (?:one of )?([^)]*)\?\)/, (_m, s: string) => (optionLike ? '' : `; did you mean '${s.split(', ')[0]}'?`))
    .trim();
  // The rest of a line break is in the word given (`svc $'x\ny'`), shown as every outside text is.
  return `${shown(message, 400)} (run '${path} --help')`;
}

function report(deps: Deps, message: string): void {
  deps.stderr.write(`svc: ${message}\n`);
}

/**
 * Runs svc with these arguments (without the program name) and returns the
 * exit code. Never exits the process; every error becomes one stderr line.
 */
export async function run(argv: readonly string[], deps: Deps): Promise<number> {
  // `svc --version` needs neither the command tree nor the catalogue.
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
    deps.stdout.write(`${version}\n`);
    return ExitCode.ok;
  }
  const { buildProgram } = await import('./program.js');
  const { root } = buildProgram(deps, argv);
  if (argv.length === 0) {
    root.outputHelp();
    return ExitCode.ok;
  }
  try {
    await root.parseAsync([...argv], { from: 'user' });
    return ExitCode.ok;
  } catch (err) {
    // Nothing has been done or printed: bin/svc.js runs the line again with the whole program.
    if (isFullBuildNeeded(err)) return NEEDS_FULL_BUILD;
    if (isCommanderError(err)) {
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version') return ExitCode.ok;
      // A group run without a verb: commander has printed its help on stderr (help asked for is helpDisplayed, program.ts).
      if (err.code === 'commander.help') return ExitCode.usage;
      report(deps, reshapeCommanderMessage(err));
      return ExitCode.usage;
    }
    if (err instanceof SvcError) {
      // An empty message is an answer given by the exit code alone (`exists`).
      if (err.message) report(deps, err.message);
      return err.exitCode;
    }
    const message = err instanceof Error ? err.message : String(err);
    report(deps, `unexpected error: ${shown(message, 500)} (set SVC_DEBUG=1 for details)`);
    if (deps.env.SVC_DEBUG) deps.stderr.write(`${err instanceof Error ? err.stack : ''}\n`);
    return ExitCode.failure;
  }
}
