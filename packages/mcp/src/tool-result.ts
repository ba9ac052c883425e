import { DomainIndexError, RateLimitError } from '@domain-index/client';
import type { ApiErrorBody } from '@domain-index/contract';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** A tool's answer: the structured content its output schema describes, and a text rendering of it. */
export function toolResult(structured: Record<string, unknown>, text: string): CallToolResult {
  return { structuredContent: structured, content: [{ type: 'text', text }] };
}

/** What a tool error says. */
interface ToolFailure {
  code: string;
  message: string;
  param?: string;
  retry_after_seconds?: number;
}

/** Ends a message as a sentence: the API's messages come without a full stop. */
const sentence = (text: string) => (/[.!?]$/.test(text) ? text : `${text}.`);

/**
 * The code to branch on, the parameter, the API's message, and for a 429 the wait:
 * `invalid_parameter (parameter limit): limit must be ...`, `rate_limited: ... Retry after 42
 * seconds.` No structured content: an error need not fit the output schema.
 */
function failure(error: ToolFailure): CallToolResult {
  const where = error.param === undefined || error.param === '' ? '' : ` (parameter ${error.param})`;
  const retry = error.retry_after_seconds === undefined ? '' : ` Retry after ${error.retry_after_seconds} seconds.`;
  return { isError: true, content: [{ type: 'text', text: `${error.code}${where}: ${sentence(error.message)}${retry}` }] };
}

/** A bad argument found by the contract's own check, worded as the API words its 400. */
export function argumentError(error: ApiErrorBody): CallToolResult {
  return failure({ code: error.code, message: error.message, ...(error.param === undefined ? {} : { param: error.param }) });
}

/**
 * An API error as a tool error, never a protocol error: the model reads the API's message (which
 * names the parameter and the fix), and for a 429 how long to wait. Anything else is rethrown,
 * and the SDK answers it as a tool error with its message.
 */
export function apiError(error: unknown): CallToolResult {
  if (!(error instanceof DomainIndexError)) throw error;
  return failure({
    code: error.rawCode ?? (error.status === undefined ? 'connection_failed' : `http_${error.status}`),
    message: error.message,
    ...(error.param === undefined ? {} : { param: error.param }),
    ...(error instanceof RateLimitError && error.retryAfter !== undefined ? { retry_after_seconds: error.retryAfter } : {}),
  });
}

/** Runs a tool's API call; its API errors become tool errors. */
export async function calling(run: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await run();
  } catch (error) {
    return apiError(error);
  }
}
