import type { TestSandbox } from '../helpers/sandbox.js';

/**
 * Helpers the auth tests share, bound to the sandbox of the running test
 * (`sandbox()` is called each time: the tests start a fresh one per test).
 */
export function authHelpers(sandbox: () => TestSandbox) {
  const app = (identifier: string) => {
    const found = sandbox().sandbox.credentials.demo?.applications.find((a) => a.identifier === identifier);
    if (!found) throw new Error(`no seeded application ${identifier}`);
    return found;
  };
  return {
    /** The clear secret of a seeded application. */
    secretOf: (identifier: string): string => app(identifier).appsecret,
    /** The ID of a seeded application. */
    appId: (identifier: string): number => app(identifier).id,
    /** POST /auth/v1/login with a JSON body and no token. */
    postLogin: (fields: Record<string, unknown>) => sandbox().call('POST', 'auth/v1/login', { token: null, json: fields }),
    /** A seeded user's name and password for device-1, plus any extra fields. */
    credentials: (name: string, extra: Record<string, unknown> = {}) => ({
      name,
      password: sandbox().user(name).password,
      identifier: 'device-1',
      ...extra,
    }),
  };
}
