/** The request of `svc login`: the form `POST {auth}/login` takes, and what its answers mean. */
import { createHash } from 'node:crypto';
import { hostname } from 'node:os';
import type { Target } from '../../../cli/connection.js';
import { AuthError } from '../../../errors.js';
import type { HttpClient } from '../../../http/client.js';
import { HttpStatusError } from '../../../http/errors.js';
import { shown } from '../../../util/shown.js';
import type { LoginInputs } from './inputs.js';

/** The service's answer to a login. */
export interface TokenObject {
  readonly token: string;
  readonly user: number;
  readonly application: number | null;
  readonly expdate: number | null;
  readonly identifier: string;
}

/** A stable identifier for a URL-only target: this machine and the URL. */
function urlIdentifier(url: string): string {
  const host = hostname().replace(/[^A-Za-z0-9-]/g, '').slice(0, 40) || 'host';
  return `svc-${host}-${createHash('sha256').update(url).digest('hex').slice(0, 12)}`;
}

/** The login form: name, password, the target's identifier, the application secret; the code and expiry when given. */
export function loginForm(inputs: LoginInputs, target: Target, otp: string | undefined, expdate: number | undefined): Record<string, string> {
  const form: Record<string, string> = {
    name: inputs.user,
    password: inputs.password,
    identifier: target.profile?.identifier ?? urlIdentifier(target.instanceUrl),
    appsecret: inputs.appsecret,
  };
  if (otp) form.otp = otp;
  if (expdate !== undefined) form.expdate = String(expdate);
  return form;
}

/** Sends the form without a token; the service answers with a token object. */
export async function requestToken(client: HttpClient, form: Record<string, string>): Promise<TokenObject> {
  const res = await client.request({ method: 'POST', root: 'auth', path: '/login', form, auth: false });
  return res.json<TokenObject>();
}

/** The service asks for the one-time code of a two-factor account. */
export function isOtpRequest(err: unknown): boolean {
  return err instanceof HttpStatusError && err.status === 401 && /one-time code/i.test(err.serviceText) && /needs|required/i.test(err.serviceText);
}

/** A refused login as exit 4 with the service's reason; anything else unchanged. */
export function loginError(err: unknown): unknown {
  if (err instanceof HttpStatusError && err.status === 401) return new AuthError(`login failed: ${shown(err.serviceText)}`);
  return err;
}
