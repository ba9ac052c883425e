import type { ClientOptions } from '@domain-index/client';

/**
 * How the MCP server's client calls the API: a 429 is answered at once with its retry time
 * (the model can decide to wait, or tell its user), instead of the client sleeping through a
 * Retry-After of up to a minute while the host's tool call times out. 5xx and failed
 * connections without a Retry-After are still retried, briefly.
 */
export const MCP_CLIENT_OPTIONS = { maxRetryAfter: 0, maxRetries: 2, timeout: 30_000 } as const satisfies ClientOptions;
