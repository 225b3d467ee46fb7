/**
 * What Node's own default trust store holds beyond the public roots: the
 * NODE_EXTRA_CA_CERTS file the process started with, which Node reads itself
 * (at the first TLS connection). main.ts, the one module that reads `process`,
 * notes it here; the client then need not read that file again (a system
 * bundle is ~200 KB) unless another one is asked for. Unnoted (tests running
 * svc in-process), the client reads every extra file itself.
 */
let startedWith: string | undefined;

/** Notes the NODE_EXTRA_CA_CERTS this process started with. */
export function noteStartupExtraCa(file: string | undefined): void {
  startedWith = file || undefined;
}

/** The NODE_EXTRA_CA_CERTS Node's default store already holds, if noted. */
export function startupExtraCa(): string | undefined {
  return startedWith;
}
