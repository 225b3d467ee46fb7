import { describe, expect, it } from 'vitest';
import { firstCommandWord } from '../../src/cli/globals.js';
import { svc } from '../helpers/cli.js';

describe('the first command word, skipping global options as commander reads them', () => {
  it.each([
    [['accounts', 'count'], 'accounts'],
    [['-o', 'csv', 'accounts', 'count'], 'accounts'],
    [['-ocsv', 'accounts'], 'accounts'],
    [['-vo', 'csv', 'accounts'], 'accounts'],
    [['-vocsv', 'accounts'], 'accounts'],
    [['-v', 'accounts'], 'accounts'],
    [['--output=csv', 'accounts'], 'accounts'],
    [['--output', 'accounts', 'contacts'], 'contacts'],
    [['--url', 'accounts', 'count'], 'count'],
    [['--no-color', '--crlf', 'tasks', 'query'], 'tasks'],
    [['--profile', 'p', '--timeout', '5s', 'describe', 'accounts'], 'describe'],
    [['--', 'accounts'], 'accounts'],
    [['--verbose'], undefined],
    [['--help', 'accounts'], undefined],
    [['-h', 'accounts'], undefined],
    [['-vh', 'accounts'], undefined],
    [['-v', '--help', 'accounts', 'count'], undefined],
    [['accounts', '--help'], 'accounts'],
    [['-o'], undefined],
  ])('%j → %s', (argv, word) => {
    expect(firstCommandWord(argv)).toBe(word);
  });

  it('leaves the rest of the tree out only where the line cannot reach it: errors and help stay the same', async () => {
    const unknownVerb = await svc(['-v', 'accounts', 'qury']);
    expect(unknownVerb).toMatchObject({ code: 2, stderr: "svc: unknown command 'qury'; did you mean 'query'? (run 'svc accounts --help')\n" });
    const group = await svc(['accounts', '--help']);
    expect(group.code).toBe(0);
    expect(group.stdout).toMatch(/^Usage: svc accounts \[options\] \[command\]/);
    // Help asked for before the family word is the root's help, with the whole tree.
    const rootHelp = (await svc(['--help'])).stdout;
    for (const argv of [['--help', 'accounts'], ['-h', 'accounts', 'count'], ['-vh', 'accounts']]) expect((await svc(argv)).stdout).toBe(rootHelp);
    expect(rootHelp).toMatch(/^Commands:\n\s+resources/m);
    // `resources` is a family and a command of svc: the command, with the family's verbs.
    expect((await svc(['resources', '-o', 'json'])).code).toBe(0);
    const typo = await svc(['acounts', 'count']);
    expect(typo.stderr).toBe("svc: unknown command 'acounts'; did you mean 'accounts'? (run 'svc --help')\n");
  });
});
