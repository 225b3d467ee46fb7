/**
 * Standard output without its stream until one is needed (src/cli/stdout.ts):
 * real file descriptors, real pipes. Whatever path a write takes, the reader
 * gets every byte once and in order, and errors reach the stream that reports them.
 */
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, readFileSync, readSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { lazyOutput } from '../../src/cli/stdout.js';
import type { OutStream } from '../../src/output/io.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'svc-stdout-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A stand-in for process.stdout that keeps what it is given, and counts how often it was made. */
function recordingStream(isTTY = false): { made: number; got: Buffer[]; make: () => OutStream } {
  const state = { made: 0, got: [] as Buffer[], make: (): OutStream => undefined as never };
  state.make = () => {
    state.made++;
    return {
      write: (chunk) => (state.got.push(Buffer.from(chunk)), true),
      isTTY,
      columns: isTTY ? 123 : undefined,
    };
  };
  return state;
}

describe('standard output without its stream', () => {
  it('writes to a regular file directly and never makes the stream', () => {
    const file = join(dir, 'out.txt');
    const fd = openSync(file, 'w');
    const s = recordingStream();
    const out = lazyOutput(fd, s.make);
    expect({ isTTY: out.isTTY, columns: out.columns }).toEqual({ isTTY: false, columns: undefined });
    out.write('héllo ');
    out.write(new TextEncoder().encode('wörld\n'));
    closeSync(fd);
    expect({ file: readFileSync(file, 'utf8'), made: s.made }).toEqual({ file: 'héllo wörld\n', made: 0 });
  });

  it('hands a terminal or device to the stream from the start', () => {
    // /dev/null is a character device, as a terminal is: the direct path is for pipes, sockets and files.
    const fd = openSync('/dev/null', 'w');
    const s = recordingStream(true);
    const out = lazyOutput(fd, s.make);
    out.write('x');
    closeSync(fd);
    expect({ isTTY: out.isTTY, columns: out.columns, made: s.made, got: Buffer.concat(s.got).toString() }).toEqual({ isTTY: true, columns: 123, made: 1, got: 'x' });
  });

  /** A FIFO opened read-write and non-blocking: a pipe that says EAGAIN once its buffer (64 KiB on Linux) is full. */
  function openFifo(ctx: { skip: (note?: string) => void }, name: string): number {
    const fifo = join(dir, name);
    const made = spawnSync('mkfifo', [fifo]);
    if (made.status !== 0) ctx.skip(`mkfifo is not available here (${made.stderr.toString().trim()})`);
    return openSync(fifo, constants.O_RDWR | constants.O_NONBLOCK);
  }

  /** Everything the pipe holds, read until it is empty. */
  function drainFifo(fd: number): Buffer {
    const piped: Buffer[] = [];
    const buf = Buffer.alloc(1 << 16);
    for (;;) {
      let n = 0;
      try {
        n = readSync(fd, buf);
      } catch {
        break; // EAGAIN: the pipe is empty
      }
      if (n === 0) break;
      piped.push(Buffer.from(buf.subarray(0, n)));
    }
    return Buffer.concat(piped);
  }

  it('gives the stream what a full non-blocking pipe would not take, and every later write, in order', (ctx) => {
    const fd = openFifo(ctx, 'fifo');
    // Someone else's bytes leave the pipe 8 KiB of room.
    const theirs = Buffer.alloc((1 << 16) - 8192, 't');
    expect(writeSync(fd, theirs)).toBe(theirs.length);
    const s = recordingStream();
    const out = lazyOutput(fd, s.make);
    const ours = Buffer.alloc(20_000, 'a');
    ours.write('START', 0);
    out.write(ours);
    out.write('END');
    const piped = drainFifo(fd);
    closeSync(fd);
    const direct = piped.subarray(theirs.length);
    const streamed = Buffer.concat(s.got);
    expect(s.made).toBe(1);
    expect(direct.length).toBeGreaterThan(0);
    expect(Buffer.concat([direct, streamed]).equals(Buffer.concat([ours, Buffer.from('END')]))).toBe(true);
  });

  it('to a pipe, writes straight only a screenful: the rest goes to the stream (a blocked write(2) would hold off SIGTERM), in order', (ctx) => {
    const fd = openFifo(ctx, 'fifo-screenful');
    const s = recordingStream();
    const out = lazyOutput(fd, s.make);
    const help = Buffer.alloc(8000, 'h');
    out.write(help);
    expect(s.made).toBe(0);
    const big = Buffer.alloc(1 << 20, 'b');
    out.write(big);
    out.write('END');
    const direct = drainFifo(fd);
    closeSync(fd);
    expect(s.made).toBe(1);
    expect(direct.length).toBeLessThanOrEqual(32 * 1024);
    expect(Buffer.concat([direct, ...s.got]).equals(Buffer.concat([help, big, Buffer.from('END')]))).toBe(true);
  });

  it('to a regular file, writes straight whatever the size', () => {
    const file = join(dir, 'big.txt');
    const fd = openSync(file, 'w');
    const s = recordingStream();
    const out = lazyOutput(fd, s.make);
    out.write(Buffer.alloc(1 << 20, 'f'));
    closeSync(fd);
    expect({ size: readFileSync(file).length, made: s.made }).toEqual({ size: 1 << 20, made: 0 });
  });

  it('a closed pipe ends the built svc quietly (exit 0), as with the stream', async () => {
    const child = spawn(process.execPath, [join(root, 'bin', 'svc.js'), 'describe', 'accounts'], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', HOME: dir, SVC_CONFIG_DIR: join(dir, 'config') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // The reader goes away before svc writes a byte (start-up alone takes tens of milliseconds).
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
  });

  it('the built svc writes the same to a pipe and to a file', () => {
    const file = join(dir, 'help.txt');
    const env = { PATH: process.env.PATH ?? '', HOME: dir, SVC_CONFIG_DIR: join(dir, 'config') };
    const piped = spawnSync(process.execPath, [join(root, 'bin', 'svc.js'), 'describe', 'accounts'], { cwd: root, env, encoding: 'utf8' });
    const fd = openSync(file, 'w');
    const filed = spawnSync(process.execPath, [join(root, 'bin', 'svc.js'), 'describe', 'accounts'], { cwd: root, env, stdio: ['ignore', fd, 'pipe'], encoding: 'utf8' });
    closeSync(fd);
    expect(piped.stdout.length).toBeGreaterThan(1000);
    expect({ status: filed.status, stderr: filed.stderr, out: readFileSync(file, 'utf8') }).toEqual({ status: 0, stderr: '', out: piped.stdout });
  });
});
