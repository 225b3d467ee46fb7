/**
 * The one exit-code table of svc and the typed errors that map onto it.
 * `run()` turns any thrown error into one line on stderr and one of these codes.
 */

/** Exit codes, stable across releases: scripts may depend on them. */
export const ExitCode = {
  ok: 0,
  failure: 1,
  usage: 2,
  notFound: 3,
  auth: 4,
  conflict: 5,
  interrupted: 130,
} as const;

export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

/** The documented contract, rendered by `svc help exit-codes` and in the README. */
export const exitCodeTable: readonly { code: ExitCodeValue; name: string; meaning: string }[] = [
  { code: 0, name: 'ok', meaning: 'the command did what was asked' },
  { code: 1, name: 'failure', meaning: 'the service failed (5xx) or refused the request (a 4xx not named below), the network failed after retries, or svc itself failed' },
  { code: 2, name: 'usage', meaning: 'bad input: unknown command, option, resource or field, or an invalid value; nothing was written, and no request went out but those a check needs (the count `update`/`delete --filter` shows before asking for `--yes`, import\'s lookups, a sign-in that asks for `--otp`)' },
  { code: 3, name: 'not found', meaning: 'the record does not exist (404); `exists` uses it for "no", `svc sandbox status` for "not running"' },
  { code: 4, name: 'auth', meaning: 'not signed in, token invalid (401), or permission missing (403)' },
  { code: 5, name: 'conflict', meaning: 'the record changed or clashes: 409, 410 or 412 from the service' },
  { code: 130, name: 'interrupted', meaning: 'stopped by Ctrl-C (SIGINT) or SIGTERM; `export`, `sync`, `watch`, `import`, `update`/`delete --filter` and `login --web` also by SIGHUP, a closed terminal (but `svc sandbox start --foreground` exits 0: being stopped is how it ends)' },
];

/** Base of every error svc reports on purpose: a one-line message and an exit code. */
export class SvcError extends Error {
  readonly exitCode: ExitCodeValue;
  constructor(message: string, exitCode: ExitCodeValue = ExitCode.failure) {
    super(message);
    this.name = new.target.name;
    this.exitCode = exitCode;
  }
}

/** Bad input from the user; nothing was sent. */
export class UsageError extends SvcError {
  constructor(message: string) {
    super(message, ExitCode.usage);
  }
}

/** The thing asked for does not exist. */
export class NotFoundError extends SvcError {
  constructor(message: string) {
    super(message, ExitCode.notFound);
  }
}

/** Not signed in, or not allowed. */
export class AuthError extends SvcError {
  constructor(message: string) {
    super(message, ExitCode.auth);
  }
}

/** The record changed or clashes with another. */
export class ConflictError extends SvcError {
  constructor(message: string) {
    super(message, ExitCode.conflict);
  }
}

/** The user stopped the command. */
export class InterruptedError extends SvcError {
  constructor(message = 'interrupted') {
    super(message, ExitCode.interrupted);
  }
}
