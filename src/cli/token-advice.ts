/**
 * What to tell a person about a token: where it came from ("SVC_TOKEN", "the
 * keychain"), the login command for a target, and the fix when the service
 * refused it. The auth commands and the HTTP client's 401 message (through
 * connection.ts) say the same. No text here ever carries the token itself.
 */
import type { ResolvedToken } from '../auth/chain.js';
import { shown } from '../util/shown.js';

/** What the advice needs of a target (connection.ts's Target has it). */
export interface AdviceTarget {
  readonly profile?: { readonly name: string } | undefined;
  readonly instanceUrl: string;
}

/** Where a token came from, for people: "SVC_TOKEN", "the keychain", … */
export function sourceLabel(token: ResolvedToken): string {
  switch (token.source) {
    case 'flag':
      return `--token-file ${token.where ?? ''}`.trim();
    case 'env':
      return 'SVC_TOKEN';
    case 'token file':
      return `SVC_TOKEN_FILE (${token.where ?? ''})`;
    case 'keychain':
      return 'the keychain';
    case 'plain file':
      return 'the plain file (--insecure-storage)';
  }
}

/** The login command for a target: with --profile or --url when it is not implied. */
export function loginCommand(target: AdviceTarget): string {
  if (target.profile) return `svc login --profile ${shown(target.profile.name)}`;
  return `svc login --url ${shown(target.instanceUrl)}`;
}

/** How to get a valid token when the one from this source was refused. */
export function fixFor(token: ResolvedToken, target: AdviceTarget): string {
  switch (token.source) {
    case 'flag':
      return `put a valid token in ${token.where ?? 'the --token-file file'}, or drop --token-file and run '${loginCommand(target)}'`;
    case 'env':
      return `set SVC_TOKEN to a valid token, or unset it and run '${loginCommand(target)}'`;
    case 'token file':
      return `put a valid token in ${token.where ?? 'the SVC_TOKEN_FILE file'}, or unset SVC_TOKEN_FILE and run '${loginCommand(target)}'`;
    default:
      return `run '${loginCommand(target)}' to sign in again`;
  }
}
