/**
 * `svc sandbox status`: flags → options; whether a sandbox serves the data
 * dir, asked over HTTP (and HTTPS with the data dir's CA) of a real sandbox.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { sandboxStatusSpec } from '../../../src/commands/sandbox/status/command.js';
import { sandboxFiles, writeState } from '../../../src/commands/sandbox/state.js';
import { svc } from '../../helpers/cli.js';
import { freshDataDir, serveDataDir, type Serving } from './serving.js';

const open: Serving[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

describe('svc sandbox status', () => {
  it('takes --data-dir as given (the run resolves the default)', () => {
    expect(sandboxStatusSpec.toOptions({ args: [], flags: {} })).toEqual({});
    expect(sandboxStatusSpec.toOptions({ args: [], flags: { dataDir: 'rel/dir' } })).toEqual({ dataDir: 'rel/dir' });
  });

  it('reports a sandbox that serves the data dir and answers its health check', async () => {
    const dataDir = freshDataDir();
    const serving = await serveDataDir(dataDir);
    open.push(serving);
    const r = await svc(['sandbox', 'status', '--data-dir', dataDir, '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      running: true,
      instanceUrl: serving.state.instanceUrl,
      pid: serving.state.pid,
      port: serving.state.port,
      https: false,
      dataDir,
      log: sandboxFiles(dataDir).log,
      startedAt: serving.state.startedAt,
    });
  });

  it('checks an HTTPS sandbox with the CA file of its data dir', async () => {
    const dataDir = freshDataDir();
    const serving = await serveDataDir(dataDir, { https: true });
    open.push(serving);
    const r = await svc(['sandbox', 'status', '--data-dir', dataDir, '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ running: true, https: true, caFile: serving.state.caFile, instanceUrl: serving.state.instanceUrl });
  });

  it('exits 3 when none runs, or when its process does not answer', async () => {
    const dataDir = freshDataDir();
    expect(await svc(['sandbox', 'status', '--data-dir', dataDir])).toMatchObject({
      code: 3,
      stdout: '',
      stderr: `svc: no sandbox runs from ${dataDir}; start one with 'svc sandbox start --data-dir ${dataDir}'\n`,
    });
    const serving = await serveDataDir(dataDir);
    await serving.sandbox.close();
    writeState(dataDir, serving.state);
    expect(await svc(['sandbox', 'status', '--data-dir', dataDir])).toMatchObject({
      code: 3,
      stderr: `svc: the sandbox process ${serving.state.pid} of ${dataDir} does not answer; see ${sandboxFiles(dataDir).log} or run 'svc sandbox stop --data-dir ${dataDir}'\n`,
    });
  });

  it('says so when it cannot control processes', async () => {
    expect(await svc(['sandbox', 'status', '--data-dir', freshDataDir()], { processes: false })).toMatchObject({
      code: 1,
      stdout: '',
      stderr: 'svc: svc sandbox cannot control processes here; run it from the svc command line\n',
    });
  });
});
