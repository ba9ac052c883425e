import { connect, createServer, type AddressInfo, type Socket } from 'node:net';

/** The code a CancelRequest carries where a startup packet carries its protocol version. */
const CANCEL_REQUEST_CODE = 80877102;

/** A loopback proxy in front of PostgreSQL, and the CancelRequests that passed through it. */
export interface CancelDelayingProxy {
  /** The proxy's port on 127.0.0.1. */
  port: number;
  /** How many CancelRequests reached the proxy. */
  cancels(): number;
  close(): Promise<void>;
}

/**
 * Passes every connection through to PostgreSQL at `upstream`, except that a CancelRequest
 * (its own short connection, 16 bytes) is held `delayMs` before it is passed on: the network
 * or a busy machine between a driver and the server, where a cancel arrives late and lands on
 * whatever its backend runs by then.
 */
export async function startCancelDelayingProxy(upstream: { host: string; port: number }, delayMs: number): Promise<CancelDelayingProxy> {
  const sockets = new Set<Socket>();
  let cancels = 0;
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
  };
  const server = createServer((client) => {
    track(client);
    client.once('data', (first: Buffer) => {
      client.pause();
      const isCancel = first.length >= 8 && first.readInt32BE(0) === 16 && first.readInt32BE(4) === CANCEL_REQUEST_CODE;
      if (isCancel) cancels += 1;
      setTimeout(
        () => {
          const server = connect(upstream.port, upstream.host, () => {
            server.write(first);
            client.pipe(server);
            server.pipe(client);
            client.resume();
          });
          track(server);
          server.on('close', () => client.destroy());
          client.on('close', () => server.destroy());
        },
        isCancel ? delayMs : 0,
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    cancels: () => cancels,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
