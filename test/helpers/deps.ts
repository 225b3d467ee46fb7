/**
 * Older names of the one in-process runner (test/helpers/cli.ts), kept so
 * tests written against them run unchanged. New tests import from cli.ts.
 */
export { Capture, svc, testDeps as createTestDeps, type CliRun as CliResult, type RunOptions as TestDepsOptions } from './cli.js';
