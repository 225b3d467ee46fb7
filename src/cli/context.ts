/**
 * What every run function receives: the injected deps and the per-invocation
 * facts, each resolved once (the output choices, the profiles, the target
 * instance, the connection). Nothing here knows commander.
 */
import type { ProfileStore } from '../config/profiles.js';
import { UsageError } from '../errors.js';
import { resolveFormat, useColor, type OutputFormat } from '../output/format.js';
import type { View } from '../output/view.js';
import { writeView } from '../output/write.js';
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
  /** Closes what the run opened (the client's keep-alive sockets). */
  close(): Promise<void>;
}

/** The csv/tsv options (--no-header, --delimiter, --crlf), checked. */
export function delimitedOf(globals: GlobalOptions): Pick<OutputSettings, 'header' | 'delimiter' | 'eol'> {
  const delimiter = globals.delimiter ?? ',';
  if ([...delimiter].length !== 1 || /["\r\n]/.test(delimiter)) {
    throw new UsageError(`--delimiter takes one character other than a quote or line break, not '${delimiter}'`);
  }
  return { header: globals.header, delimiter, eol: globals.crlf ? '\r\n' : '\n' };
}

function once<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => (made ??= { value: make() }).value;
}

/** The context of one run. */
export function createContext(deps: Deps, globals: GlobalOptions): Context {
  const output = once(
    (): OutputSettings => ({
      format: resolveFormat(globals.output, deps.stdout.isTTY),
      color: useColor(deps.stdout.isTTY, deps.env, globals.color),
      ...delimitedOf(globals),
    }),
  );
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
          return connect(globals, deps, needs, { profiles: await profiles(), target: await target() });
        })();
      }
      return connection;
    },
    emit: async (view) => writeView(deps.stdout, view, output()),
    async close() {
      const c = connection;
      connection = undefined;
      await c?.then((x) => x.client.close()).catch(() => undefined);
    },
  };
}
