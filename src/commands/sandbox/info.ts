/**
 * What `svc sandbox start` and `reset` print: the instance URL and the demo
 * user's and the svc-cli application's credentials (its appsecret, which is
 * also its OAuth client secret), read from the data dir's credentials.json
 * (mode 0600). The only output that carries them.
 */
import { existsSync, readFileSync } from 'node:fs';
import { SvcError } from '../../errors.js';
import type { ObjectView } from '../../output/view.js';
import { ioReason } from '../../util/io-error.js';
import { shellQuote } from '../../util/shell-quote.js';
import { shown } from '../../util/shown.js';
import { sandboxCommand } from './data-dir.js';
import { sandboxFiles } from './state.js';

/** The user and application `start` hands out. */
export const DEMO_USER = 'demo';
export const CLI_APPLICATION = 'svc-cli';

/** The data `start -o json` prints: exactly these members (caFile only under https). */
export interface SandboxInfo {
  /** Absent when `reset` reseeded a sandbox that is not running. */
  readonly instanceUrl?: string;
  readonly user: string;
  readonly password: string;
  readonly appsecret: string;
  /** The OAuth client of `svc login --web`: the svc-cli application's identifier… */
  readonly clientId: string;
  /** …and its secret, which is its appsecret. */
  readonly clientSecret: string;
  readonly caFile?: string;
}

interface StoredCredentials {
  readonly users?: readonly { name: string; password: string }[];
  readonly applications?: readonly { identifier: string; appsecret: string }[];
}

/**
 * Reads the demo tenant's credentials from the data dir; a missing or damaged file is a SvcError naming it
 * and the reset of this data dir (`env` tells whether it is the default one).
 */
export function readSandboxInfo(
  dataDir: string,
  where: { instanceUrl?: string | undefined; caFile?: string | undefined },
  env: Readonly<Record<string, string | undefined>>,
): SandboxInfo {
  const file = sandboxFiles(dataDir).credentials;
  const fix = `run '${sandboxCommand('reset', dataDir, env)}' to wipe the tenant and seed it again`;
  if (!existsSync(file)) throw new SvcError(`no credentials in ${shown(file)}; ${fix}`);
  let all: Record<string, StoredCredentials | undefined>;
  try {
    all = JSON.parse(readFileSync(file, 'utf8')) as Record<string, StoredCredentials | undefined>;
  } catch (err) {
    if (!(err instanceof SyntaxError)) throw new SvcError(`cannot read ${shown(file)}: ${ioReason(err)}`);
    throw new SvcError(`the credentials file ${shown(file)} is damaged (not JSON); ${fix}`);
  }
  const demo = typeof all === 'object' && all !== null ? all.demo : undefined;
  const user = Array.isArray(demo?.users) ? demo.users.find((u) => u?.name === DEMO_USER && typeof u.password === 'string') : undefined;
  const app = Array.isArray(demo?.applications) ? demo.applications.find((a) => a?.identifier === CLI_APPLICATION && typeof a.appsecret === 'string') : undefined;
  if (!user || !app) throw new SvcError(`the demo user or the ${CLI_APPLICATION} application is missing from ${shown(file)}; ${fix}`);
  return {
    ...(where.instanceUrl ? { instanceUrl: where.instanceUrl } : {}),
    user: user.name,
    password: user.password,
    appsecret: app.appsecret,
    clientId: app.identifier,
    clientSecret: app.appsecret,
    ...(where.caFile ? { caFile: where.caFile } : {}),
  };
}

/**
 * The command that signs in to the sandbox with a browser (OAuth): the client secret in the environment, never in
 * argv; with the sandbox's profile when it has one (without, it would sign in the current profile).
 */
export function webLoginHint(info: Pick<SandboxInfo, 'clientId' | 'clientSecret'>, profile?: string): string {
  return `SVC_CLIENT_SECRET=${shellQuote(info.clientSecret)} svc login --web${profile ? ` --profile ${shellQuote(profile)}` : ''} --client-id ${shellQuote(info.clientId)}`;
}

/** The credentials as a view: the object as data, labelled lines in a table (the browser sign-in with `profile`). */
export function infoView(info: SandboxInfo, profile?: string): ObjectView {
  const details: [string, string][] = [];
  if (info.instanceUrl) details.push(['instance URL', info.instanceUrl]);
  details.push(
    ['user', info.user],
    ['password', info.password],
    ['appsecret', `${info.appsecret} (application ${CLI_APPLICATION})`],
    ['OAuth client', `${info.clientId} (its client secret is the appsecret)`],
    ['browser sign-in', webLoginHint(info, profile)],
  );
  if (info.caFile) details.push(['CA file', info.caFile]);
  return { kind: 'object', value: info, details };
}

/**
 * How to point svc at the sandbox (stderr, after the credentials): through
 * its profile when it registered one, else with environment variables.
 */
export function usageHint(info: Pick<SandboxInfo, 'instanceUrl' | 'caFile'>, profileHint: string | undefined): string {
  if (profileHint) return `\n${profileHint}\n`;
  const vars: [string, string | undefined][] = [
    ['SVC_URL', info.instanceUrl],
    ['NODE_EXTRA_CA_CERTS', info.caFile],
  ];
  const lines = vars.filter((v): v is [string, string] => v[1] !== undefined).map(([k, v]) => `  export ${k}=${shellQuote(v)}`);
  return `\nto point svc at it, set:\n${lines.join('\n')}\n`;
}
