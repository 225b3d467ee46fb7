import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll } from 'vitest';

/**
 * A server on 127.0.0.1 that accepts connections and never answers, for
 * timeout tests. Started before the file's tests, closed after.
 */
export function useSilentServer(): { port(): number } {
  let server: Server | undefined;
  let port = 0;
  const sockets: Socket[] = [];
  beforeAll(async () => {
    const s = createServer((sock) => sockets.push(sock));
    server = s;
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
    port = (s.address() as { port: number }).port;
  });
  afterAll(async () => {
    for (const sock of sockets) sock.destroy();
    await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  });
  return { port: () => port };
}
