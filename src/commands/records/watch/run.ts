/**
 * `svc <family> watch`: builds the query as query does, takes the cursor
 * file's lock and state (or starts afresh: a snapshot, or from --since),
 * connects, and hands over to the poll loop in src/watch/. Stops cleanly on
 * SIGINT, SIGTERM and SIGHUP (cursor saved, exit 130). When the reader of
 * standard output goes away, src/cli/main.ts ends the process quietly (exit 0)
 * as for every command, and the lock goes with it (util/exit-hooks.ts): the
 * cursor file then holds the last poll completed, the state a crash leaves
 * (nothing missed; that poll's lines may come again).
 */
import { existsSync, statSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { Context } from '../../../cli/context.js';
import { UsageError } from '../../../errors.js';
import { parseInstanceUrl } from '../../../http/urls.js';
import { jsonLine } from '../../../output/json.js';
import { shown } from '../../../util/shown.js';
import { queryFetcher } from '../../../records/query.js';
import { lockProcessesOf, type HeldLock } from '../../../util/file-lock.js';
import { shortDuration } from '../../../util/duration.js';
import { interruptSignal } from '../../../util/interrupt.js';
import type { WatchState } from '../../../watch/state.js';
import type { WatchOptions } from './options.js';
import { commandText, toWatchRequest } from './request.js';

export async function runWatchCommand(opts: WatchOptions, ctx: Context): Promise<void> {
  const { deps } = ctx;
  const { family } = opts;
  if (ctx.globals.jq !== undefined) throw new UsageError(`watch writes NDJSON lines as changes come: pipe them to jq ('svc ${family.name} watch | jq …') instead of --jq`);
  if (ctx.globals.output !== undefined && ctx.globals.output !== 'ndjson') throw new UsageError(`watch writes NDJSON only; drop -o ${ctx.globals.output}`);
  // --since is checked before anything else happens (a bad date is a usage error, nothing sent).
  const since = opts.since !== undefined ? (await import('./since.js')).parseSince(opts.since, deps.now(), opts.tz) : null;
  const req = await toWatchRequest(opts, ctx);
  const [{ runWatch, firstPageBody }, { watchSelection }, { freshState }] = await Promise.all([
    import('../../../watch/engine.js'),
    import('../../../watch/selection.js'),
    import('../../../watch/state.js'),
  ]);
  const selection = watchSelection(req.fields);
  if (opts.explain || opts.printRequest) {
    // A new watch's first page, as its first poll asks it (with --since's bound).
    const body = firstPageBody(req.query, selection, freshState(since), opts.lagSeconds, opts.pageSize);
    deps.stdout.write(`${jsonLine(deps.stdout)(opts.explain ? (req.query.filter ?? {}) : body, 2)}\n`);
    return;
  }
  const signal = interruptSignal(deps.processes ? (sig, fn) => deps.processes?.onceSignal(sig, fn) : undefined);
  // The connection options (--retries, --timeout, --ca-file, the token) are checked before the cursor file is
  // made: a run refused for them leaves no file behind.
  const { client } = await ctx.connect({ token: true });
  const cursor = await openCursor(opts, ctx, req.fingerprint, since);
  try {
    if (deps.stderr.isTTY) deps.stderr.write(`svc: watching ${family.name} every ${shortDuration(opts.intervalMs)} (Ctrl-C to stop)\n`);
    await runWatch({
      family: family.name,
      query: req.query,
      selection,
      lagSeconds: opts.lagSeconds,
      intervalMs: opts.intervalMs,
      reconcileEvery: opts.reconcileEvery,
      pageSize: opts.pageSize,
      once: opts.once,
      state: cursor.state,
      fetch: queryFetcher(client, family, signal),
      out: deps.stdout,
      save: cursor.save,
      onClosed: () => cursor.lock?.release(),
      signal,
      warn: (m) => void deps.stderr.write(`svc: ${m}\n`),
      now: () => deps.now(),
      monotonic: () => (deps.monotonic ? deps.monotonic() : performance.now()),
    });
  } finally {
    cursor.lock?.release();
  }
}

/** The longest name a file system takes (bytes), and what svc adds to the cursor file's for the longest it keeps beside it (FILE.svc-lock.<12 hex>.stale, a dead holder's lock moved aside). */
const MAX_NAME_BYTES = 255;
const BESIDE_BYTES = '.svc-lock.'.length + 12 + '.stale'.length;

/** Where the watch starts and keeps its state: the cursor file (locked, read or created), or memory only. */
interface OpenCursor {
  readonly state: WatchState;
  readonly save: (state: WatchState) => void;
  readonly lock?: HeldLock;
}

/**
 * Takes the cursor file's lock, then its state (refusing one of another watch, or --since on one in use),
 * or starts afresh from --since (null: a snapshot); a new file is written at once, so a path that cannot
 * be written fails before any line goes out.
 */
async function openCursor(opts: WatchOptions, ctx: Context, fingerprint: Readonly<Record<string, unknown>>, since: number | null): Promise<OpenCursor> {
  const { deps } = ctx;
  const { freshState } = await import('../../../watch/state.js');
  const file = opts.cursorFile;
  if (file === undefined) return { state: freshState(since), save: () => undefined };
  const [{ acquireLock }, { loadCursor, saveCursor }] = await Promise.all([import('../../../util/file-lock.js'), import('../../../watch/cursor-file.js')]);
  const dir = dirname(file);
  if (!existsSync(dir)) throw new UsageError(`--cursor-file ${shown(file)}: the directory ${shown(dir)} does not exist; create it first`);
  if (!statSync(dir).isDirectory()) throw new UsageError(`--cursor-file ${shown(file)}: ${shown(dir)} is not a directory`);
  const tooLong = (): UsageError =>
    new UsageError(`--cursor-file ${shown(file)}: the name is too long for the files svc keeps beside it (FILE.svc-lock and its drafts); give a name of at most ${MAX_NAME_BYTES - BESIDE_BYTES} bytes`);
  if (Buffer.byteLength(basename(file)) + BESIDE_BYTES > MAX_NAME_BYTES) throw tooLong();
  // The instance the watch reads: a cursor file is never resumed against another one.
  const target = await ctx.target();
  // A sandbox's profile follows its sandbox to another port (svc sandbox start), and so does its cursor file.
  const owner = { instance: parseInstanceUrl(target.instanceUrl).instance, family: opts.family.name, query: fingerprint, movable: target.profile?.sandboxDir !== undefined };
  const refusal = (holder: string): string => `another watch with the cursor file ${shown(file)} is running (${holder}); stop it first, or give another --cursor-file`;
  const unnamed = (lock: string): string => `the lock ${lock} of the cursor file ${shown(file)} does not say which process holds it (it is not a lock file svc can read); remove it if no watch with that cursor file is running`;
  let lock: HeldLock;
  try {
    lock = acquireLock(`${file}.svc-lock`, commandText(opts), lockProcessesOf(deps.processes), () => deps.now(), refusal, unnamed);
  } catch (err) {
    // A file system whose names are shorter than most.
    if ((err as NodeJS.ErrnoException).code === 'ENAMETOOLONG') throw tooLong();
    throw err;
  }
  try {
    const loaded = loadCursor(file, owner);
    if (loaded && opts.since !== undefined) throw new UsageError(`--since starts a new watch, and ${shown(file)} holds one already; drop --since to resume it, or remove the file`);
    const save = (s: WatchState): void => saveCursor(file, owner, s);
    const state = loaded?.state ?? freshState(since);
    // A new file, or one re-stamped (the sandbox's new address, the query in today's form), is written at once.
    if (!loaded || loaded.movedFrom !== undefined || loaded.olderForm) save(state);
    if (loaded?.movedFrom !== undefined) {
      deps.stderr.write(`svc: the cursor file ${shown(file)} now names the instance ${shown(owner.instance)} (was ${shown(loaded.movedFrom)}): profile '${shown(target.profile?.name ?? '')}' follows its sandbox\n`);
    }
    return { state, save, lock };
  } catch (err) {
    lock.release();
    throw err;
  }
}
