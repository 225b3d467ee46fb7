/**
 * What every run function receives: the injected deps and the per-invocation
 * facts, each resolved once (the output choices, the profiles, the target
 * instance, the connection). Nothing here knows commander.
 */
import type { ProfileStore } from '../config/profiles.js';
import { UsageError } from '../errors.js';
import { checkJqFormat, resolveFormat, useColor, type OutputFormat } from '../output/format.js';
import type { JqEngine } from '../output/jq-engine.js';
import type { JqSettings } from '../output/jq.js';
import { createPager } from '../output/pager.js';
import type { View } from '../output/view.js';
import { writeView } from '../output/write.js';
import { MAX_TIMER_MS, parseDuration } from '../util/duration.js';
import { shown } from '../util/shown.js';
import { connect, resolveTarget, type Connection, type Target } from './connection.js';
import type { Deps } from './deps.js';
import type { GlobalOptions } from './globals.js';

/** How records are written: format, colour and the csv/tsv choices. */
export interface OutputSettings {
  readonly format: OutputFormat;
  readonly color: boolean;
  /** Header line for table, csv and tsv. */
  readonly header: boolean;
  readonly delimiter: string;
  readonly eol: '\n' | '\r\n';
}

export interface Context {
  readonly deps: Deps;
  readonly globals: GlobalOptions;
  /** The output format and its options (a UsageError when -o names no format). */
  output(): OutputSettings;
  /** The csv/tsv choices alone (export writes files whatever -o says). */
  delimited(): Pick<OutputSettings, 'header' | 'delimiter' | 'eol'>;
  /** The profiles, opened once. */
  profiles(): Promise<ProfileStore>;
  /** The instance this run talks to (flags, environment, current profile). */
  target(): Promise<Target>;
  /** Target, token and HTTP client, resolved once; closed after the run. With `token`, a missing token is exit 4. */
  connect(needs: { token: boolean }): Promise<Connection>;
  /** Writes a view to stdout in the chosen format. */
  emit(view: View): Promise<void>;
  /**
   * With --jq: its settings (the expression, checked; this run's engine; colour; stderr) for
   * writeJq (src/output/jq.ts), which filters a body a command writes itself (`svc api`). Else undefined.
   */
  jq(): Promise<JqSettings | undefined>;
  /** Closes what the run opened (the client's keep-alive sockets). */
  close(): Promise<void>;
}

/** The csv/tsv options (--no-header, --delimiter, --crlf), checked. */
export function delimitedOf(globals: GlobalOptions): Pick<OutputSettings, 'header' | 'delimiter' | 'eol'> {
  const delimiter = globals.delimiter ?? ',';
  if ([...delimiter].length !== 1 || /["\r\n]/.test(delimiter)) {
    throw new UsageError(`--delimiter takes one character other than a quote or line break, not ${shown(JSON.stringify(delimiter), 40)}`);
  }
  // A control character (ESC, NUL, DEL, …) is no separator a reader can see or a terminal shows as itself; a tab is (tsv-like csv).
  if (/[^\P{Cc}\t]/u.test(delimiter)) {
    throw new UsageError(`--delimiter takes a printable character or a tab, not the control character ${shown(JSON.stringify(delimiter), 40)}`);
  }
  return { header: globals.header, delimiter, eol: globals.crlf ? '\r\n' : '\n' };
}

function once<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => (made ??= { value: make() }).value;
}

/**
 * The output format: -o, else a table on a terminal and JSON elsewhere; with
 * --jq, JSON unless -o says otherwise, and a UsageError for a format jq cannot take.
 */
function formatOf(deps: Deps, globals: GlobalOptions): OutputFormat {
  if (globals.jq === undefined) return resolveFormat(globals.output, deps.stdout.isTTY);
  const format = resolveFormat(globals.output ?? 'json', deps.stdout.isTTY);
  checkJqFormat(format);
  return format;
}

/**
 * --jq's engine for the run (one worker thread, started on first use; see
 * src/output/jq-engine.ts), with SVC_JQ_TIMEOUT as its time limit; `made`
 * is the engine once asked for (to close it).
 */
function jqEngineOf(deps: Deps): { get(): Promise<JqEngine>; made(): Promise<JqEngine> | undefined } {
  let engine: Promise<JqEngine> | undefined;
  return {
    get: () =>
      (engine ??= (async () => {
        const timeout = deps.env.SVC_JQ_TIMEOUT;
        const { createJqEngine } = await import('../output/jq-engine.js');
        return createJqEngine(timeout ? { timeoutMs: parseDuration(timeout, 'SVC_JQ_TIMEOUT', MAX_TIMER_MS) } : {});
      })()),
    made: () => engine,
  };
}

/** The context of one run. */
export function createContext(deps: Deps, globals: GlobalOptions): Context {
  const output = once(
    (): OutputSettings => ({
      format: formatOf(deps, globals),
      color: useColor(deps.stdout.isTTY, deps.env, globals.color),
      ...delimitedOf(globals),
    }),
  );
  const expr = globals.jq;
  const jqEngine = expr === undefined ? undefined : jqEngineOf(deps);
  // A bad expression or format is a usage error before anything is sent: the connection waits for the check.
  const jqChecked = once(async () => {
    if (expr === undefined || !jqEngine) return;
    // export takes a file for -o: its format is its own business.
    if (globals.output === undefined || !/[./\\]/.test(globals.output)) output();
    await (await jqEngine.get()).check(expr);
  });
  // The engine starts at once, beside the rest of the command (a worker thread): checked by the time it is needed.
  if (expr !== undefined) jqChecked().catch(() => undefined);
  const jqSettings = async (): Promise<JqSettings | undefined> => {
    if (expr === undefined || !jqEngine) return undefined;
    await jqChecked();
    return { expr, engine: await jqEngine.get(), color: output().color, stderr: deps.stderr };
  };
  const pager = createPager(deps.processes?.spawnPager, deps.env, globals.pager);
  const profiles = once(async () => (await import('../config/profiles.js')).openProfiles(deps.configDir));
  const target = once(async () => resolveTarget(globals, deps, await profiles()));
  let connection: Promise<Connection> | undefined;
  let withToken = false;
  return {
    deps,
    globals,
    output,
    delimited: once(() => delimitedOf(globals)),
    profiles,
    target,
    connect(needs) {
      // A connection made without a token serves a later caller only when it does not need one.
      if (!connection || (needs.token && !withToken)) {
        const previous = connection;
        withToken = needs.token;
        connection = (async () => {
          await previous?.then((c) => c.client.close()).catch(() => undefined);
          const [made] = await Promise.all([
            (async () => connect(globals, deps, needs, { profiles: await profiles(), target: await target() }))(),
            jqChecked(),
          ]);
          return made;
        })();
      }
      return connection;
    },
    jq: jqSettings,
    async emit(view) {
      const settings = output();
      const jq = await jqSettings();
      return writeView(deps.stdout, view, { ...settings, ...(jq ? { jq } : pager ? { pager } : {}) });
    },
    async close() {
      const c = connection;
      connection = undefined;
      await c?.then((x) => x.client.close()).catch(() => undefined);
      await jqEngine
        ?.made()
        ?.then((e) => e.close())
        .catch(() => undefined);
    },
  };
}
