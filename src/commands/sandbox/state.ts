/**
 * The files a sandbox keeps in its data dir, and the state file that says
 * which process serves it: written by the serving process as it starts and
 * once it listens, removed when it stops.
 *
 * A pid alone names no process for long: a sandbox killed with SIGKILL (or a
 * reboot) leaves its state file behind, and its pid later belongs to some
 * other process of the user's. So the state also records what proves the
 * process is this sandbox: its start time as the kernel counts it (where there
 * is /proc), and a random token its `/_sandbox/health` answers with. Nothing
 * is ever signalled, called "the sandbox" or waited for unless one of them
 * matches.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, constants, existsSync, fstatSync, lstatSync, mkdirSync, openSync, readFileSync, readSync, readdirSync, renameSync, rmdirSync, statSync, unlinkSync, writeFileSync, type Stats } from 'node:fs';
import { dirname, join } from 'node:path';
import type { ProcessControl } from '../../cli/deps.js';
import { SvcError } from '../../errors.js';
import { ioReason } from '../../util/io-error.js';
import { shown } from '../../util/shown.js';
import { checkHealth } from './health.js';

/** What the serving process records about itself. */
export interface SandboxState {
  readonly pid: number;
  /** `http://127.0.0.1:PORT`; absent while the process is still starting. */
  readonly origin?: string;
  readonly port?: number;
  /** `<origin>/demo`, the URL a client is given. */
  readonly instanceUrl?: string;
  readonly https: boolean;
  /** The CA certificate to trust, under https. */
  readonly caFile?: string;
  readonly seedAccounts?: number;
  /** --oauth-access-ttl in seconds, when given (reset restarts with it). */
  readonly oauthAccessTtlSeconds?: number;
  /** ISO time the process started. */
  readonly startedAt: string;
  /** A random token the sandbox's `/_sandbox/health` answers with (absent in state files of older versions). */
  readonly token?: string;
  /** The process's start as the kernel counts it (processStartOf), where there is /proc. */
  readonly processStart?: string;
}

/** Paths of the files in a data dir. */
export function sandboxFiles(dataDir: string) {
  return {
    state: join(dataDir, 'sandbox.json'),
    log: join(dataDir, 'sandbox.log'),
    database: join(dataDir, 'sandbox.sqlite'),
    credentials: join(dataDir, 'credentials.json'),
    tls: join(dataDir, 'tls'),
    /** Held by start, stop and reset while they change what runs from the data dir (lock.ts). */
    lock: join(dataDir, 'sandbox.lock'),
  };
}

function statOrUndefined(path: string): ReturnType<typeof statSync> | undefined {
  try {
    return statSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw err;
  }
}

/** What stands at the data dir's path: a directory, nothing (yet), or something else (a file, or a path below one). */
export function dataDirKind(dataDir: string): 'directory' | 'missing' | 'not-a-directory' {
  let st;
  try {
    st = statSync(dataDir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOTDIR') return 'not-a-directory';
    if (code === 'ENOENT') return 'missing';
    // Unreadable (EACCES, ELOOP…): nothing svc could have run from it.
    return 'not-a-directory';
  }
  return st.isDirectory() ? 'directory' : 'not-a-directory';
}

/**
 * Creates the data dir (mode 0700) when missing, one level at a time (never Node's recursive mkdir, which
 * loops for ever on a path such as /proc/x), and tightens it when it exists. A path that is a file, lies
 * below one, or where no folder may be made is a SvcError: one line naming it.
 */
export function ensureDataDir(dataDir: string): void {
  const missing: string[] = [];
  let at = dataDir;
  const cannot = (err: unknown): SvcError => new SvcError(`cannot make the sandbox data dir ${shown(dataDir)}: ${ioReason(err)}; choose another with --data-dir`);
  for (;;) {
    let st;
    try {
      st = statOrUndefined(at);
    } catch (err) {
      throw cannot(err);
    }
    if (st) {
      if (st.isDirectory()) break;
      const which = at === dataDir ? '' : ` (${shown(at)} is a file)`;
      throw new SvcError(`the sandbox data dir ${shown(dataDir)} is not a directory${which}; choose a directory with --data-dir (it is made when missing)`);
    }
    missing.push(at);
    const up = dirname(at);
    if (up === at) break;
    at = up;
  }
  for (const dir of missing.reverse()) {
    try {
      mkdirSync(dir, { mode: 0o700 });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || !statOrUndefined(dir)?.isDirectory()) throw cannot(err);
    }
  }
  try {
    chmodSync(dataDir, 0o700);
  } catch (err) {
    throw new SvcError(`cannot use the sandbox data dir ${shown(dataDir)}: ${ioReason(err)}; choose another with --data-dir`);
  }
}

/** Creates the database file with mode 0600 first, so SQLite's -wal and -shm files get that mode too. */
export function ensurePrivateDatabase(dataDir: string): void {
  const file = sandboxFiles(dataDir).database;
  if (!existsSync(file)) closeSync(openSync(file, 'a', 0o600));
}

/** Writes a text file with mode 0600, replacing it atomically. */
export function writePrivateFile(file: string, text: string): void {
  const tmp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(tmp, text, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, file);
}

/** A pid a state file may name: an integer above 1 (0 is a process group, -1 every process, 1 init). */
export function isSandboxPid(pid: unknown): pid is number {
  return typeof pid === 'number' && Number.isSafeInteger(pid) && pid > 1;
}

/** What the state file holds: nothing, a state, or something svc did not write (why, in words). */
export type StateRead = { readonly state: SandboxState; readonly damaged?: undefined } | { readonly state?: undefined; readonly damaged: string } | { readonly state?: undefined; readonly damaged?: undefined };

/** A state file larger than this is not one svc wrote: it is not read. */
const MAX_STATE_BYTES = 64 * 1024;

/** What a path that is no regular file is, for a message. */
function kindOf(st: Stats): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isSymbolicLink()) return 'a symbolic link';
  if (st.isFIFO()) return 'a FIFO';
  if (st.isSocket()) return 'a socket';
  return 'a device';
}

/**
 * The state file's text, read only when it is a regular file of a size svc writes (never a directory, a
 * FIFO that would block the read for ever, a link or a device); otherwise why not, in words.
 */
function readStateText(file: string): { text: string } | { damaged: string } | undefined {
  let st: Stats;
  try {
    st = lstatSync(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    return { damaged: `it cannot be read: ${ioReason(err)}` };
  }
  if (!st.isFile()) return { damaged: `it is ${kindOf(st)}, not a file` };
  if (st.size > MAX_STATE_BYTES) return { damaged: 'it is larger than any state svc writes' };
  let fd: number | undefined;
  try {
    // O_NONBLOCK and O_NOFOLLOW: replaced meanwhile by a FIFO or a link, it still cannot block or lead elsewhere.
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    const now = fstatSync(fd);
    if (!now.isFile()) return { damaged: `it is ${kindOf(now)}, not a file` };
    const buf = Buffer.alloc(MAX_STATE_BYTES + 1);
    let n = 0;
    for (let got = -1; got !== 0 && n < buf.length; n += got) got = readSync(fd, buf, n, buf.length - n, n);
    if (n > MAX_STATE_BYTES) return { damaged: 'it is larger than any state svc writes' };
    return { text: buf.subarray(0, n).toString('utf8') };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    return { damaged: `it cannot be read: ${ioReason(err)}` };
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Reads the state file, checking what it names before anything may act on it. */
export function readStateFile(dataDir: string): StateRead {
  const read = readStateText(sandboxFiles(dataDir).state);
  if (!read) return {};
  if ('damaged' in read) return { damaged: read.damaged };
  const { text } = read;
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return { damaged: 'it is not JSON' };
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return { damaged: 'it holds no state' };
  const o = v as Record<string, unknown>;
  if (!isSandboxPid(o.pid)) return { damaged: `it names pid ${shown(JSON.stringify(o.pid ?? null), 40)}, which no sandbox can have` };
  const optionalString = (k: string): boolean => o[k] === undefined || typeof o[k] === 'string';
  if (!['origin', 'instanceUrl', 'caFile', 'token', 'processStart', 'startedAt'].every(optionalString)) return { damaged: 'a member has the wrong type' };
  return { state: v as SandboxState };
}

/** The recorded state, or undefined when there is none (or it is damaged). */
export function readState(dataDir: string): SandboxState | undefined {
  return readStateFile(dataDir).state;
}

/** Records the state of the serving process. */
export function writeState(dataDir: string, state: SandboxState): void {
  writePrivateFile(sandboxFiles(dataDir).state, `${JSON.stringify(state, null, 2)}\n`);
}

/**
 * Removes the state file; with `pid`, only when it still names that process. Whatever stands there (a
 * directory only when empty: svc never empties one) is removed; returns why it could not be, in words
 * ("it cannot be removed: …; remove it"), or undefined when it is gone.
 */
export function removeState(dataDir: string, pid?: number): string | undefined {
  if (pid !== undefined && readState(dataDir)?.pid !== pid) return undefined;
  const file = sandboxFiles(dataDir).state;
  try {
    if (lstatSync(file).isDirectory()) rmdirSync(file);
    else unlinkSync(file);
    return undefined;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // Gone already; or the data dir is a file, or below one: there is no state file to remove.
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    return `it cannot be removed: ${ioReason(err)}; remove it`;
  }
}

/**
 * Whether a start would refuse the state file that stands there: a directory with entries, which svc
 * never empties (removeState removes a directory only when it is empty).
 */
export function stateBlocksStart(dataDir: string): boolean {
  const file = sandboxFiles(dataDir).state;
  try {
    return lstatSync(file).isDirectory() && readdirSync(file).length > 0;
  } catch {
    // Gone, or unreadable: a start says what it finds.
    return false;
  }
}

/** A new token for the state file and the health route. */
export function newToken(): string {
  return randomBytes(16).toString('hex');
}

/**
 * When process `pid` started, as "<boot id>:<clock ticks since boot>" from /proc (field 22 of
 * /proc/PID/stat); undefined where there is no /proc or no such process. Two processes with one pid never
 * share it, across reboots either.
 */
export function processStartOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const ticks = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
    if (!ticks || !/^\d+$/.test(ticks)) return undefined;
    let boot = '';
    try {
      boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    } catch {
      // Without a boot id the ticks still tell processes of this boot apart.
    }
    return `${boot}:${ticks}`;
  } catch {
    return undefined;
  }
}

/** How far before its recorded `startedAt` a sandbox's process may have started (Node's start-up, loading svc, the data dir's lock). */
const STARTED_BEFORE_MS = 10_000;
/** How far after it: the kernel's boot time is whole seconds, and the clock may have been set meanwhile. */
const STARTED_AFTER_MS = 2_000;

/**
 * Whether the process `started` (processStartOf) began at about `startedAt` (ISO), as the sandbox that
 * recorded it did: the kernel's boot time (/proc/stat btime) plus its start in clock ticks (USER_HZ, 100
 * on Linux). undefined when either cannot be read. A process that has the pid now but started after
 * the sandbox that recorded it ended (it cannot have it while that one runs) fails this check.
 */
export function startedAbout(started: string, startedAt: string | undefined): boolean | undefined {
  const at = startedAt === undefined ? NaN : Date.parse(startedAt);
  const ticks = Number(started.slice(started.lastIndexOf(':') + 1));
  let btime = NaN;
  try {
    btime = Number(/^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'))?.[1]);
  } catch {
    // no /proc/stat: no boot time
  }
  if (!Number.isFinite(at) || !Number.isFinite(btime) || !Number.isFinite(ticks)) return undefined;
  const startMs = btime * 1000 + ticks * 10;
  return startMs >= at - STARTED_BEFORE_MS && startMs <= at + STARTED_AFTER_MS;
}

/**
 * What the kernel says of whether process `state.pid` is the one that wrote the state: its start time
 * against the recorded one, or (in a state file of an older svc, which recorded none) against
 * `startedAt`; undefined where there is no /proc to ask.
 */
export function sameProcess(state: SandboxState): boolean | undefined {
  const started = processStartOf(state.pid);
  if (started === undefined) return undefined;
  if (state.processStart !== undefined) return started === state.processStart;
  return startedAbout(started, state.startedAt) ?? false;
}

/** What a look at the data dir finds. */
export interface Probe {
  /** The recorded state, when the state file is sound. */
  readonly state?: SandboxState | undefined;
  /** Why the state file cannot be used (it names pid 0, is not JSON…); then nothing runs from the data dir. */
  readonly damaged?: string | undefined;
  /**
   * The recorded pid runs but is not this sandbox: 'reused' when its start time shows it is another process,
   * 'silent' when (with no start time to compare) it does not answer with the sandbox's token; false otherwise.
   */
  readonly stranger: 'reused' | 'silent' | false;
  /** The recorded process runs and is this sandbox. */
  readonly alive: boolean;
  /** It listens and answers `/_sandbox/health` (with its token, when it recorded one). */
  readonly healthy: boolean;
}

/**
 * Whether a sandbox runs from this data dir: the recorded process runs, is this sandbox (its kernel start
 * time matches; where that cannot be read, its health route answers with its token), and answers. An
 * answer without a token proves nothing: any sandbox answers so, and 8642 is every data dir's default
 * port. So a state file of an older svc (no token) is proven only by the kernel's start time.
 */
export async function probeSandbox(dataDir: string, proc: ProcessControl): Promise<Probe> {
  const read = readStateFile(dataDir);
  if (read.damaged !== undefined) return { damaged: read.damaged, stranger: false, alive: false, healthy: false };
  const { state } = read;
  if (!state || !proc.kill(state.pid, 0)) return { state, stranger: false, alive: false, healthy: false };
  const byClock = sameProcess(state);
  if (byClock === false) return { state, stranger: 'reused', alive: false, healthy: false };
  // Proven by the clock, its answer (with the token when it recorded one) says whether it serves yet.
  const answers = state.origin !== undefined && (state.token !== undefined || byClock === true) && (await checkHealth(state.origin, state.caFile, state.token));
  if (!byClock && !(answers && state.token !== undefined)) return { state, stranger: 'silent', alive: false, healthy: false };
  return { state, stranger: false, alive: true, healthy: answers };
}

/** Why the state file of a probe was set aside, in words for a message; undefined when it names this sandbox or nothing. */
export function setAsideReason(dataDir: string, probe: Probe): string | undefined {
  const file = sandboxFiles(dataDir).state;
  if (probe.damaged !== undefined) return `its state file ${shown(file)} is damaged: ${probe.damaged}`;
  if (probe.stranger === 'reused' && probe.state) return `its state file names pid ${probe.state.pid}, which is not its sandbox but another process now`;
  if (probe.stranger === 'silent' && probe.state) {
    if (probe.state.token === undefined) return `its state file, of an older svc, names pid ${probe.state.pid}, which svc cannot tell is its sandbox`;
    return `its state file names pid ${probe.state.pid}, which does not answer as its sandbox`;
  }
  return undefined;
}

/**
 * Before a new sandbox starts: removes the state file that names no running sandbox (the probe found
 * none), saying why when it was set aside (`note`); one that cannot be removed (a directory with files in
 * it, a read-only data dir) is a SvcError naming it, so nothing claims to have removed what is there.
 */
export function clearStaleState(dataDir: string, probe: Probe, note: (line: string) => void): void {
  const setAside = setAsideReason(dataDir, probe);
  const left = removeState(dataDir);
  if (left) throw new SvcError(`cannot start a sandbox from ${shown(dataDir)}: ${setAside ?? `its state file ${shown(sandboxFiles(dataDir).state)} names no running sandbox`}, and ${left}`);
  if (setAside) note(`${setAside}; the file was removed, and a new sandbox starts`);
}
