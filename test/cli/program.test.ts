import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { exitCodeTable } from '../../src/errors.js';
import { svc } from '../helpers/cli.js';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

describe('the svc program', () => {
  it('prints its version', async () => {
    expect(await svc(['--version'])).toEqual({ code: 0, stdout: `${pkg.version}\n`, stderr: '' });
    expect((await svc(['-V'])).stdout).toBe(`${pkg.version}\n`);
  });

  it('shows the command tree: global options, commands and resource groups', async () => {
    for (const argv of [['--help'], []]) {
      const r = await svc(argv, { tty: true });
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/^Usage: svc \[options\] \[command\]/);
      expect(r.stdout).toContain('-o, --output <format>');
      expect(r.stdout).toMatch(/^Commands:\n\s+resources/m);
      expect(r.stdout).toMatch(/^Resource commands:\n\s+accounts\s+Accounts$/m);
      expect(r.stdout).toMatch(/^\s+groups2users\s+Groups-to-users \(admin read-only\)$/m);
    }
  });

  it('lists the exit codes on a help page', async () => {
    const r = await svc(['help', 'exit-codes']);
    expect(r.code).toBe(0);
    for (const row of exitCodeTable) expect(r.stdout).toMatch(new RegExp(`^\\s+${row.code}\\s+${row.name}\\s+`, 'm'));
  });

  it('lists its help topics in svc help and svc help --help, each one a page', async () => {
    const topics = /^Help topics \(svc help <topic>\):\n {2}exit-codes {2}the exit codes svc returns, for scripts\n {2}filters {5}the --filter language: .+$/m;
    const help = await svc(['help'], { tty: true });
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: svc \[options\] \[command\]/);
    expect(help.stdout).toMatch(topics);
    const own = await svc(['help', '--help']);
    expect(own.code).toBe(0);
    expect(own.stdout).toMatch(/^Usage: svc help \[options\] \[topic\.\.\.\]\n\nshow help for a command or topic: exit-codes, filters\n/);
    expect(own.stdout).toMatch(topics);
    expect((await svc(['--help'])).stdout).toMatch(/^ {2}help \[topic\.\.\.\] +show help for a command or topic: exit-codes, filters$/m);
    const filters = await svc(['help', 'filters']);
    expect(filters).toMatchObject({ code: 0, stderr: '' });
    expect(filters.stdout).toMatch(/^Filters\n/);
    expect(filters.stdout).toContain("--filter 'type = CUSTOMER and contact.city ~* \"^ber\"'");
    expect((await svc(['help', 'filter'])).stderr).toBe("svc: no help for 'filter'; did you mean 'filters'? (run 'svc --help')\n");
  });

  it('shows help for a command through help or --help', async () => {
    const a = await svc(['help', 'accounts', 'describe']);
    const b = await svc(['accounts', 'describe', '--help']);
    expect(a.code).toBe(0);
    expect(a.stdout).toBe(b.stdout);
    expect(a.stdout).toMatch(/^Usage: svc accounts describe \[options\] \[field\]/);
    const bad = await svc(['help', 'exit-code']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe("svc: no help for 'exit-code'; did you mean 'exit-codes'? (run 'svc --help')\n");
  });

  it('rejects an unknown command with exit 2 and a did-you-mean, nothing on stdout', async () => {
    const r = await svc(['acounts']);
    expect(r).toEqual({ code: 2, stdout: '', stderr: "svc: unknown command 'acounts'; did you mean 'accounts'? (run 'svc --help')\n" });
    const verb = await svc(['accounts', 'descibe']);
    expect(verb.stderr).toBe("svc: unknown command 'descibe'; did you mean 'describe'? (run 'svc accounts --help')\n");
  });

  it('rejects an unknown option with exit 2 and a did-you-mean', async () => {
    const r = await svc(['resources', '--outptu', 'json']);
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr: "svc: unknown option '--outptu'; did you mean '--output'? (run 'svc resources --help')\n",
    });
  });

  it('rejects an unknown output format before doing anything', async () => {
    const r = await svc(['resources', '-o', 'yaml']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe("svc: unknown output format 'yaml' (choose table, json, ndjson, csv, tsv; for export, a file of that name: --output-file yaml)\n");
  });

  it('asks for a verb when a group is run without one', async () => {
    const r = await svc(['accounts']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^Usage: svc accounts \[options\] \[command\]/);
  });

  it('reports a missing argument as a usage error', async () => {
    const r = await svc(['describe']);
    expect(r).toEqual({ code: 2, stdout: '', stderr: "svc: missing required argument 'path' (run 'svc describe --help')\n" });
  });
});

describe('prototype keys as words', () => {
  it('are no help topics, commands or families', async () => {
    for (const word of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      const help = await svc(['help', word]);
      expect(help.code).toBe(2);
      expect(help.stderr).toMatch(new RegExp(`^svc: no help for '${word}'.*\\(run 'svc --help'\\)\\n$`));
      const cmd = await svc([word]);
      expect(cmd.code).toBe(2);
      expect(cmd.stderr).toMatch(new RegExp(`^svc: unknown command '${word}'`));
    }
  });
});

describe('after --', () => {
  it('takes an option-like word as an unknown command, without a made-up suggestion', async () => {
    expect(await svc(['--', '--help'])).toEqual({ code: 2, stdout: '', stderr: "svc: unknown command '--help' (run 'svc --help')\n" });
  });
});
