/** `svc sandbox stop`: flags → options; a data dir that no sandbox serves (any more) is fine. */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { processControl } from '../../../src/cli/main.js';
import { ensureDataDir, sandboxFiles, writeState } from '../../../src/commands/sandbox/state.js';
import { sandboxStopSpec } from '../../../src/commands/sandbox/stop/command.js';
import { svc } from '../../helpers/cli.js';
import { freshDataDir } from './serving.js';

describe('svc sandbox stop', () => {
  it('takes --data-dir as given (the run resolves the default)', () => {
    expect(sandboxStopSpec.toOptions({ args: [], flags: {} })).toEqual({});
    expect(sandboxStopSpec.toOptions({ args: [], flags: { dataDir: '/d' } })).toEqual({ dataDir: '/d' });
  });

  it('has nothing to stop in an empty data dir', async () => {
    const dataDir = freshDataDir();
    expect(await svc(['sandbox', 'stop', '--data-dir', dataDir])).toMatchObject({
      code: 0,
      stdout: '',
      stderr: `no sandbox runs from ${dataDir}; nothing to stop\n`,
    });
  });

  it('clears the state file of a process that has exited', async () => {
    const dataDir = freshDataDir();
    const exited = spawnSync(processControl().execPath, ['-e', '']).pid;
    expect(processControl().kill(exited, 0)).toBe(false);
    ensureDataDir(dataDir);
    writeState(dataDir, { pid: exited, https: false, startedAt: new Date().toISOString() });
    const r = await svc(['sandbox', 'stop', '--data-dir', dataDir]);
    expect(r).toMatchObject({ code: 0, stderr: `no sandbox runs from ${dataDir}; nothing to stop\n` });
    expect(existsSync(sandboxFiles(dataDir).state)).toBe(false);
  });
});
