import { createServer, type IncomingMessage, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll } from 'vitest';

/**
 * A real forward proxy on 127.0.0.1 for the file's tests: it opens CONNECT
 * tunnels (undici tunnels every request, http and https) and refuses
 * anything else. `tunnels` lists the `host:port` of each tunnel opened.
 */
export function useForwardProxy(): { url(): string; readonly tunnels: string[] } {
  let proxy: Server | undefined;
  let url = '';
  const tunnels: string[] = [];
  beforeAll(async () => {
    const p = createServer((_req, res) => res.writeHead(405).end());
    proxy = p;
    p.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
      tunnels.push(req.url ?? '');
      const [host, port] = (req.url ?? '').split(':');
      const upstream = connect(Number(port), host ?? '127.0.0.1', () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      upstream.on('error', () => client.destroy());
      client.on('error', () => upstream.destroy());
    });
    await new Promise<void>((r) => p.listen(0, '127.0.0.1', () => r()));
    url = `http://127.0.0.1:${(p.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((r) => (proxy ? proxy.close(() => r()) : r()));
  });
  return { url: () => url, tunnels };
}
