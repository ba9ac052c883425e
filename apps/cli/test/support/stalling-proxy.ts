import { connect, createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A loopback TCP proxy in front of a database that can stall and come back: while stalled it
 * still accepts connections, but holds every byte either way (nothing is lost, nothing is
 * answered, no connection closes), as a server that hangs (a stopped VM, a storage freeze) or a
 * paused pooler would. On resume the held bytes flow on in order.
 */
export interface StallingProxy {
  readonly port: number;
  stall(): void;
  resume(): void;
  close(): Promise<void>;
}

export async function startStallingProxy(target: { host: string; port: number }): Promise<StallingProxy> {
  const sockets = new Set<Socket>();
  const held: { to: Socket; chunk: Buffer }[] = [];
  let stalled = false;
  const forward = (to: Socket, chunk: Buffer) => {
    if (stalled) held.push({ to, chunk });
    else to.write(chunk);
  };
  const server: Server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
    }
    client.on('data', (chunk: Buffer) => forward(upstream, chunk));
    upstream.on('data', (chunk: Buffer) => forward(client, chunk));
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    stall() {
      stalled = true;
    },
    resume() {
      stalled = false;
      for (const { to, chunk } of held.splice(0)) if (!to.destroyed) to.write(chunk);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
