/**
 * The credential chain: where the token comes from, first match wins.
 *   1. --token-file FILE   (flag; the token itself never goes on the command line)
 *   2. SVC_TOKEN           (env)
 *   3. SVC_TOKEN_FILE      (token file: the systemd / Kubernetes secret pattern)
 *   4. the OS keychain     (keychain)
 *   5. a plain file, only if the profile opted in with --insecure-storage (plain file)
 */
import { closeSync } from 'node:fs';
import { platform } from 'node:os';
import type { Readable } from 'node:stream';
import { UsageError } from '../errors.js';
import { inputStream, openInput, readOpened, ReadBoundError, type OpenedInput } from '../util/read-bounded.js';
import { shown as shownText } from '../util/shown.js';
import { parseGrant, type OAuthGrant } from './oauth/grant.js';
import { KeychainUnavailableError, accountName, type CredentialStore } from './store.js';

export type CredentialSource = 'flag' | 'env' | 'token file' | 'keychain' | 'plain file';

export interface ResolvedToken {
  readonly token: string;
  readonly source: CredentialSource;
  /** The file, for the file sources. */
  readonly where?: string;
  /** A stored OAuth 2.0 sign-in (`svc login --web`): `token` is its access token. */
  readonly oauth?: OAuthGrant;
}

/** A token read from a store: a login's plain token, or the access token of a stored OAuth grant. */
function stored(value: string, source: 'keychain' | 'plain file'): ResolvedToken {
  const oauth = parseGrant(value);
  return oauth ? { token: oauth.accessToken, source, oauth } : { token: value, source };
}

/** A store, or how to open it: the chain opens one only when it gets that far. */
export type StoreOf<T> = T | (() => Promise<T>);

export interface ChainInput {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** --token-file. */
  readonly tokenFile?: string | undefined;
  /** Account prefix of the target (profile name or URL). */
  readonly key: string;
  /** The keychain; opened (its module loaded) only when no earlier source gave a token. None: stored secrets are not asked. */
  readonly keychain?: StoreOf<CredentialStore> | undefined;
  /** The plain-file store, when the profile opted in; opened only after the keychain had none. */
  readonly plain?: StoreOf<CredentialStore | undefined> | undefined;
  readonly warn: (message: string) => void;
  /** How long a token file that is a pipe may take to give its token (the --timeout). */
  readonly waitMs?: number | undefined;
}

const open = async <T,>(store: StoreOf<T>): Promise<T> => (typeof store === 'function' ? (store as () => Promise<T>)() : store);

export interface ChainResult {
  readonly token?: ResolvedToken;
  /** Why the keychain could not be asked, when it could not. */
  readonly keychainProblem?: string;
}

/** What a bearer token can be: printable ASCII without spaces, as a header carries it (a stored sign-in's rule too). */
const TOKEN = /^[\x21-\x7e]{1,4096}$/;
/** More than a token file can hold: a token and its line ending, with room to spare. */
const MOST_BYTES = 64 * 1024;

/** Refuses a token svc could not send (a line break, a space, a character a header cannot carry, a whole file's worth). */
function checkToken(token: string, where: string): string {
  if (TOKEN.test(token)) return token;
  const why = token.length > 4096 ? `is ${token.length.toLocaleString('en-US')} characters long` : /[\r\n]/.test(token) ? 'holds more than one line' : 'holds a space or a character a request header cannot carry';
  throw new UsageError(`${where} ${why}, so it is not one token; it must hold the token alone`);
}

/**
 * The text of a token file, and its mode. A regular file larger than a token
 * can be is refused unread; a pipe or FIFO (`<(vault read …)`, a named pipe)
 * is read as it is written, for at most `waitMs`, so a FIFO nobody writes to
 * never holds svc; a terminal (`/dev/stdin`: type the token, then Ctrl-D) is
 * read through the event loop, so SIGINT and SIGTERM end svc while it waits.
 * The file is opened without waiting and judged by its descriptor
 * (src/util/read-bounded.ts).
 */
async function tokenFileText(file: string, waitMs: number): Promise<{ text: string; mode: number }> {
  const shown = `token file '${shownText(file)}'`;
  const cannot = (err: unknown): UsageError => new UsageError(`cannot read ${shown} (${(err as NodeJS.ErrnoException).code ?? 'error'}); check the path`);
  let input: OpenedInput;
  try {
    input = await openInput(file);
  } catch (err) {
    throw cannot(err);
  }
  const mode = input.stats.mode;
  const tooMuch = (): UsageError => new UsageError(`${shown} gave more than ${MOST_BYTES.toLocaleString('en-US')} bytes, too much to be a token; check the path`);
  if (input.kind === 'file') {
    if (input.stats.isDirectory() || (input.stats.isFile() && input.stats.size > MOST_BYTES)) {
      closeSync(input.fd);
      if (input.stats.isDirectory()) throw new UsageError(`${shown} is a directory; give the file that holds the token`);
      throw new UsageError(`${shown} is ${input.stats.size.toLocaleString('en-US')} bytes, too large to be a token; check the path`);
    }
    // A regular file, or a device (/dev/null; /dev/zero has no end, so never read past what a token file can hold).
    try {
      return { text: (await readOpened(input, { maxBytes: MOST_BYTES })).toString('utf8'), mode };
    } catch (err) {
      throw err instanceof ReadBoundError ? tooMuch() : cannot(err);
    }
  }
  let stream: Readable;
  try {
    stream = await inputStream(input);
  } catch (err) {
    closeSync(input.fd);
    throw cannot(err);
  }
  const timed = input.kind === 'pipe';
  const text = await new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = (err?: Error): void => {
      clearTimeout(timer);
      stream.destroy();
      if (err) reject(err);
      else resolve(Buffer.concat(chunks).toString('utf8'));
    };
    // A pipe: what came by then is the token (a writer that keeps the pipe open after writing it); nothing is an error.
    // A terminal: as long as the person takes (Ctrl-C ends it).
    const timer = setTimeout(
      () => (size > 0 ? stop() : stop(new UsageError(`${shown} gave no token within ${waitMs < 1000 ? `${waitMs} ms` : `${Math.round(waitMs / 1000)} s`} (a pipe nobody writes to?); check what writes it`))),
      timed ? waitMs : 2 ** 31 - 1,
    );
    if (!timed) timer.unref();
    stream.on('data', (chunk: Buffer | string) => {
      const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      size += buf.length;
      if (size > MOST_BYTES) return stop(new UsageError(`${shown} gave more than ${MOST_BYTES.toLocaleString('en-US')} bytes, too much to be a token; check what writes it`));
      chunks.push(buf);
    });
    stream.on('end', () => stop());
    stream.on('error', (err) => stop(cannot(err)));
  });
  return { text, mode };
}

/** Reads a token file: trimmed, one token; warns when others may read it. */
export async function readTokenFile(file: string, warn: (message: string) => void, waitMs = 30_000): Promise<string> {
  const read = await tokenFileText(file, waitMs);
  const token = read.text.trim();
  if (!token) throw new UsageError(`token file '${shownText(file)}' is empty`);
  checkToken(token, `token file '${shownText(file)}'`);
  const mode = read.mode & 0o777;
  if (platform() !== 'win32' && (mode & 0o077) !== 0) {
    warn(`warning: token file ${shownText(file)} can be read by others (mode ${mode.toString(8)}); run chmod 600 ${file}`);
  }
  return token;
}

/** Walks the chain and returns the first token found, with where it came from. */
export async function resolveToken(input: ChainInput): Promise<ChainResult> {
  if (input.tokenFile) return { token: { token: await readTokenFile(input.tokenFile, input.warn, input.waitMs), source: 'flag', where: input.tokenFile } };
  const env = input.env.SVC_TOKEN?.trim();
  if (env) return { token: { token: checkToken(env, 'SVC_TOKEN'), source: 'env' } };
  const file = input.env.SVC_TOKEN_FILE;
  if (file) return { token: { token: await readTokenFile(file, input.warn, input.waitMs), source: 'token file', where: file } };
  let keychainProblem: string | undefined;
  if (input.keychain !== undefined) {
    try {
      const t = await (await open(input.keychain)).get(accountName(input.key, 'token'));
      if (t) return { token: stored(t, 'keychain') };
    } catch (err) {
      if (!(err instanceof KeychainUnavailableError)) throw err;
      keychainProblem = err.reason;
    }
  }
  const plain = input.plain === undefined ? undefined : await (await open(input.plain))?.get(accountName(input.key, 'token'));
  if (plain) return { token: stored(plain, 'plain file') };
  return keychainProblem ? { keychainProblem } : {};
}
