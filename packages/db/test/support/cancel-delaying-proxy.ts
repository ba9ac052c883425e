import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { sql } from 'drizzle-orm';
import { openDatabase, type Database } from '../../src/database';
import { createTestDatabase } from '../../src/testing';

/** The code a CancelRequest carries where a startup packet carries its protocol version. */
const CANCEL_REQUEST_CODE = 80877102;

/** A loopback proxy in front of PostgreSQL, and the CancelRequests that passed through it. */
export interface CancelDelayingProxy {
  /** The proxy's port on 127.0.0.1. */
  port: number;
  /** How many CancelRequests reached the proxy. */
  cancels(): number;
  /** How many of them the proxy has passed on to PostgreSQL (after their delay). */
  forwarded(): number;
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
  let forwarded = 0;
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
            if (isCancel) forwarded += 1;
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
    forwarded: () => forwarded,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A test database on PostgreSQL reached through a cancel-delaying proxy, on one connection. */
export interface LateCancelsDatabase {
  /** The database through the proxy, one connection: a statement after another runs on its connection. */
  database: Database;
  proxy: CancelDelayingProxy;
  /** A statement that runs twice the cancels' delay: it fails if a late cancel lands on it. */
  outlastACancel(): Promise<unknown[]>;
  /** How many sessions of the test's database are inside a transaction (idle in one, or aborted). */
  sessionsInTransaction(): Promise<number>;
  close(): Promise<void>;
}

export async function openWithLateCancels(delayMs: number): Promise<LateCancelsDatabase> {
  const test = await createTestDatabase('postgres');
  const url = new URL(test.url!);
  const proxy = await startCancelDelayingProxy({ host: url.hostname, port: Number(url.port || 5432) }, delayMs);
  url.host = `127.0.0.1:${proxy.port}`;
  const database = await openDatabase({ databaseUrl: url.toString(), maxConnections: 1 });
  return {
    database,
    proxy,
    outlastACancel: () => database.rows(sql`select true as slept from pg_sleep(${(delayMs * 2) / 1000})`),
    sessionsInTransaction: async () =>
      (await test.database.rows<{ n: number }>(sql`select count(*)::int as n from pg_stat_activity
        where datname = current_database() and pid <> pg_backend_pid() and state like 'idle in transaction%'`))[0]!.n,
    close: async () => {
      await database.close();
      await proxy.close();
      await test.dispose();
    },
  };
}
