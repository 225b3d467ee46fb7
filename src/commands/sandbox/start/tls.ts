/**
 * The certificate of `svc sandbox start --https`: a local CA and a server
 * certificate it signs for 127.0.0.1, ::1 and localhost, generated once with
 * `selfsigned` (loaded only here) and kept in `<data dir>/tls/` (mode 0600).
 */
import { X509Certificate } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureDataDir, sandboxFiles, writePrivateFile } from '../state.js';

/** What the HTTPS server needs, and the file a client trusts. */
export interface SandboxTls {
  readonly key: string;
  readonly cert: string;
  /** PEM file of the CA that signed `cert`. */
  readonly caFile: string;
}

const DAY_MS = 86_400_000;

function tlsPaths(dataDir: string) {
  const dir = sandboxFiles(dataDir).tls;
  return { dir, ca: join(dir, 'ca.pem'), caKey: join(dir, 'ca-key.pem'), cert: join(dir, 'cert.pem'), key: join(dir, 'key.pem') };
}

/** True when the certificate file exists and stays valid for at least a day after `now`. */
function isFresh(file: string, now: number): boolean {
  if (!existsSync(file)) return false;
  try {
    return new Date(new X509Certificate(readFileSync(file)).validTo).getTime() > now + DAY_MS;
  } catch {
    return false;
  }
}

type Generate = typeof import('selfsigned').generate;

/** selfsigned's generate(); it is CommonJS, so a bundle may hand it over as the default export. */
async function loadGenerate(): Promise<Generate> {
  const mod = (await import('selfsigned')) as { generate?: Generate; default?: { generate: Generate } };
  const generate = mod.generate ?? mod.default?.generate;
  if (!generate) throw new Error('the selfsigned package has no generate(); reinstall svc');
  return generate;
}

async function generateCa(now: number): Promise<{ cert: string; key: string }> {
  const generate = await loadGenerate();
  const pems = await generate([{ name: 'commonName', value: 'svc sandbox local CA' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    notBeforeDate: new Date(now - DAY_MS),
    notAfterDate: new Date(now + 3650 * DAY_MS),
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    ],
  });
  return { cert: pems.cert, key: pems.private };
}

async function generateServer(now: number, ca: { cert: string; key: string }): Promise<{ cert: string; key: string }> {
  const generate = await loadGenerate();
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    notBeforeDate: new Date(now - DAY_MS),
    // 825 days: the longest validity clients such as macOS accept for a server certificate.
    notAfterDate: new Date(now + 825 * DAY_MS),
    ca,
    extensions: [
      { name: 'basicConstraints', cA: false, critical: true },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: [{ type: 2, value: 'localhost' }, { type: 7, ip: '127.0.0.1' }, { type: 7, ip: '::1' }] },
    ],
  });
  return { cert: pems.cert, key: pems.private };
}

/**
 * The sandbox's TLS key and certificate: reused from the data dir while valid,
 * else generated (the CA too, when it is missing or expiring).
 */
export async function ensureCertificate(dataDir: string, now: number): Promise<SandboxTls> {
  const p = tlsPaths(dataDir);
  ensureDataDir(p.dir);
  if (!isFresh(p.ca, now) || !existsSync(p.caKey)) {
    const ca = await generateCa(now);
    writePrivateFile(p.caKey, ca.key);
    writePrivateFile(p.ca, ca.cert);
  }
  if (!isFresh(p.cert, now) || !existsSync(p.key) || !isIssuedBy(p.cert, p.ca)) {
    const server = await generateServer(now, { cert: readFileSync(p.ca, 'utf8'), key: readFileSync(p.caKey, 'utf8') });
    writePrivateFile(p.key, server.key);
    writePrivateFile(p.cert, server.cert);
  }
  return { key: readFileSync(p.key, 'utf8'), cert: readFileSync(p.cert, 'utf8'), caFile: p.ca };
}

function isIssuedBy(certFile: string, caFile: string): boolean {
  try {
    const cert = new X509Certificate(readFileSync(certFile));
    const ca = new X509Certificate(readFileSync(caFile));
    return cert.checkIssued(ca) && cert.verify(ca.publicKey);
  } catch {
    return false;
  }
}
