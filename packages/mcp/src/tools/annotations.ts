import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';

/** A tool that only reads the index: a host may call it without asking its user. */
export const READ_ONLY: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };
