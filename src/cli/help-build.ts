/**
 * The help build. `npm run build` bundles the program twice: dist/svc.cjs, the
 * whole of it, and dist/help.cjs, which bin/svc.js runs for help (`svc`,
 * `--help`, `-h`, `svc help …`). The help build has the command tree and help,
 * and none of what the program loads only when a command runs (the commands'
 * bodies, the HTTP client, the credential stores, the output formats): a
 * third of the bytes to read and of the code cache to load at every start.
 *
 * Should the help build reach a command that is to run (`svc accounts query
 * --filter -h` runs the query with the filter "-h"), or any module it does not
 * hold, it stops before doing anything (FullBuildNeeded, before any output)
 * and bin/svc.js runs the same command line again with the whole program.
 */
declare const SVC_HELP_BUILD: boolean;

/** True in dist/help.cjs (the build defines SVC_HELP_BUILD); false in the whole program and in tests. */
export const isHelpBuild: boolean = typeof SVC_HELP_BUILD === 'boolean' && SVC_HELP_BUILD;

/** The error code the build's stand-ins for left-out modules throw too. */
export const FULL_BUILD_CODE = 'SVC_FULL_BUILD';

/** What main() returns to bin/svc.js for "run this again with the whole program". */
export const NEEDS_FULL_BUILD = -1;

/** Thrown by the help build where the whole program is needed. */
export class FullBuildNeeded extends Error {
  readonly code = FULL_BUILD_CODE;
  constructor(what: string) {
    super(`the help build does not hold ${what}`);
  }
}

/** True for FullBuildNeeded and for a left-out module's stand-in. */
export function isFullBuildNeeded(err: unknown): boolean {
  return err instanceof Error && (err as Error & { code?: unknown }).code === FULL_BUILD_CODE;
}
