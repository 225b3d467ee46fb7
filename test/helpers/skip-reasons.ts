/**
 * A vitest reporter that lists every skipped test with its reason, before the
 * summary, so a skip never passes unnoticed (vitest's own output shows a count).
 * The reason is the note given to `ctx.skip(note)`, else the name of the test
 * or of the skipped describe block, which then says why: "(needs a Secret
 * Service)", "(skipped when fish is not installed)". A skip that gives none is
 * listed as such.
 */
import type { Reporter, TestCase, TestModule, TestSuite, Vitest } from 'vitest/node';

const SAYS_WHY = /\b(skipped|needs|only|without|absent|unavailable)\b/i;

interface Entry {
  readonly where: string;
  readonly reason: string;
  count: number;
}

/** The outermost describe block that was itself skipped (skip, skipIf, todo), if any. */
function skippedSuite(test: TestCase): TestSuite | undefined {
  let found: TestSuite | undefined;
  for (let p: TestSuite | TestModule = test.parent; p.type === 'suite'; p = p.parent) {
    if (p.options.mode === 'skip' || p.options.mode === 'todo') found = p;
  }
  return found;
}

function entryFor(test: TestCase, note: string | undefined): { where: string; reason: string } {
  const file = test.module.relativeModuleId;
  if (note) return { where: `${file} › ${test.fullName}`, reason: note };
  const suite = skippedSuite(test);
  const name = suite ? suite.fullName : test.fullName;
  const todo = (suite ?? test).options.mode === 'todo';
  const reason = todo ? 'todo: not written yet' : SAYS_WHY.test(name) ? 'as its name says' : "NO REASON GIVEN: say why in ctx.skip('…') or in the test's or block's name";
  return { where: `${file} › ${name}`, reason };
}

export default class SkipReasons implements Reporter {
  private vitest: Vitest | undefined;

  onInit(vitest: Vitest): void {
    this.vitest = vitest;
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const logger = this.vitest?.logger;
    // With -t or .only, vitest skips every other test: those skips need no reason.
    if (!logger || this.vitest?.config.testNamePattern) return;
    const entries = new Map<string, Entry>();
    for (const mod of modules) {
      for (const test of mod.children.allTests()) {
        const result = test.result();
        if (result.state !== 'skipped' || test.options.mode === 'only') continue;
        const e = entryFor(test, result.note);
        const key = `${e.where}\0${e.reason}`;
        const seen = entries.get(key);
        if (seen) seen.count++;
        else entries.set(key, { ...e, count: 1 });
      }
    }
    if (entries.size === 0) return;
    const lines = [...entries.values()].map((e) => `  ↓ ${e.where}${e.count > 1 ? ` [${e.count} tests]` : ''}: ${e.reason}`);
    logger.log(`\nSkipped, each with its reason:\n${lines.join('\n')}\n`);
  }
}
