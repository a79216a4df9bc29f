import { GatewayError, type ErrorCode } from './errors.js';
import { redact, redactDeep } from './redact.js';
import type { ContentBlock, NormalizedToolResult, ToolOutcome } from './tool-types.js';

// Every tool result leaves the gateway through normalizeResult: secrets redacted, text capped with
// an explicit marker, structuredContent kept and mirrored as one JSON text block (the MCP spec's
// advice for clients that only read text), non-text content replaced by a marker unless the tool
// is one that returns images.

export const TRUNCATION_MARKER = '...[truncated by hermes-mcp-gateway]';

export type McpToolResult = NormalizedToolResult;

export interface NormalizeOptions {
  maxChars: number;
  allowImages?: boolean;
}

export function errorOutcome(code: ErrorCode, message: string, details?: Record<string, unknown>): ToolOutcome {
  return { isError: true, structured: { error: code, message, ...(details ?? {}) } };
}

export function outcomeFromError(e: GatewayError): ToolOutcome {
  return errorOutcome(e.code, e.message, e.details);
}

/** Cuts `text` to at most `max` characters including the marker. */
export function capText(text: string, max: number): { text: string; truncated: boolean } {
  if (text.length <= max) return { text, truncated: false };
  const keep = Math.max(0, max - TRUNCATION_MARKER.length);
  return { text: text.slice(0, keep) + TRUNCATION_MARKER, truncated: true };
}

function omittedMarker(block: ContentBlock): ContentBlock {
  return { type: 'text', text: `[${block.type} content omitted by hermes-mcp-gateway]` };
}

export function normalizeResult(outcome: ToolOutcome, options: NormalizeOptions): McpToolResult {
  if (outcome.passthrough) return outcome.passthrough;
  const { maxChars } = options;
  const blocks: ContentBlock[] = [];
  let structured: Record<string, unknown> | undefined;
  let budget = maxChars;

  if (outcome.structured !== undefined) {
    const redacted = redactDeep(outcome.structured);
    structured = redacted;
    let json = JSON.stringify(redacted);
    if (json.length > maxChars) {
      // A cut JSON document is not JSON: replace the structure by an explicit truncation receipt
      // whose preview keeps the head of the serialized value.
      const receipt: Record<string, unknown> = { truncated: true, original_chars: json.length, preview: '' };
      if (outcome.isError && typeof redacted.error === 'string') receipt.error = redacted.error;
      const room = Math.max(0, maxChars - JSON.stringify(receipt).length - 64);
      receipt.preview = capText(json, room).text;
      structured = receipt;
      json = JSON.stringify(receipt);
    }
    blocks.push({ type: 'text', text: json });
    budget -= json.length;
  }

  for (const block of outcome.content ?? []) {
    if (block.type === 'text' && typeof block.text === 'string') {
      if (budget <= 0) break;
      const { text } = capText(redact(block.text), Math.max(budget, TRUNCATION_MARKER.length));
      blocks.push({ type: 'text', text });
      budget -= text.length;
    } else if (block.type === 'image' && options.allowImages) {
      blocks.push(block);
    } else {
      blocks.push(omittedMarker(block));
    }
  }

  if (blocks.length === 0) blocks.push({ type: 'text', text: '' });
  const result: McpToolResult = { content: blocks };
  if (structured !== undefined) result.structuredContent = structured;
  if (outcome.isError) result.isError = true;
  return result;
}
