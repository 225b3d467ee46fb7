/**
 * The commit the build was made from: scripts/build.mjs bakes in
 * `git rev-parse --short HEAD` (with "-dirty" when tracked files had
 * changes), or "unknown" outside a git checkout. svc run from its sources
 * (the tests) has none: "unknown".
 */
declare const SVC_COMMIT: string | undefined;

export const commit: string = typeof SVC_COMMIT === 'string' && SVC_COMMIT ? SVC_COMMIT : 'unknown';
