import type { Socket } from 'node:net';

/**
 * The address of this server as the connection that brought a request reached it: where the
 * MCP endpoint's tool calls go back in, as REST requests of the same key. Taken from the
 * socket, never from the Host header, which the caller writes.
 */
export function loopbackUrl(socket: Pick<Socket, 'localAddress' | 'localPort'>): string {
  const address = (socket.localAddress ?? '127.0.0.1').replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, '');
  const host = address.includes(':') ? `[${address}]` : address;
  return `http://${host}:${socket.localPort ?? 80}`;
}
