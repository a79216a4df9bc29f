import { GatewayError, type ErrorCode } from '../../shared/errors.js';
import { redact, redactDeep } from '../../shared/redact.js';
import type { ContentBlock, NormalizedToolResult, ToolOutcome } from './tool-types.js';

// Every tool result leaves the gateway through normalizeResult: secrets redacted, text capped with
// an explicit marker, structuredContent kept and mirrored as one JSON text block (the MCP spec's
// advice for clients that only read text), non-text content replaced by a marker unless the tool
// is one that returns images.

export const TRUNCATION_MARKER = '...[truncated by hermes-mcp-gateway]';

type McpToolResult = NormalizedToolResult;

export interface NormalizeOptions {
  maxChars: number;
  allowImages?: boolean;
}

/**
 * The outcome of a tool that hands file content to the agent (read_file, search_files): every
 * string of `structured` redacted here, once, in Hermes' file-read mode (`secretFile` for a
 * secret-bearing file), and marked so that normalizeResult does not redact it again. A nested
 * call (execute_code's hermes_tools) gets the same redacted value.
 */
export function fileReadOutcome(structured: Record<string, unknown>, options: { secretFile?: boolean } = {}): ToolOutcome {
  return { structured: redactDeep(structured, { fileRead: true, secretFile: options.secretFile === true }), redacted: 'file-read' };
}

export function errorOutcome(code: ErrorCode, message: string, details?: Record<string, unknown>): ToolOutcome {
  const structured: Record<string, unknown> = { error: code, message, ...(details ?? {}) };
  // Details may add fields, never replace the stable code or the message (keys keep their order).
  structured.error = code;
  structured.message = message;
  return { isError: true, structured };
}

export function outcomeFromError(e: GatewayError): ToolOutcome {
  return errorOutcome(e.code, e.message, e.details);
}

function isHighSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}

/** `text.slice(0, end)`, one unit shorter when the cut would split a surrogate pair. */
function headOf(text: string, end: number): string {
  if (end > 0 && end < text.length && isHighSurrogate(text.charCodeAt(end - 1))) end--;
  return text.slice(0, end);
}

/** The head of `text` plus the marker, `max` characters at most (the marker itself is cut below its own length). */
function cutWithMarker(text: string, max: number): string {
  if (max < TRUNCATION_MARKER.length) return TRUNCATION_MARKER.slice(0, Math.max(0, max));
  return headOf(text, max - TRUNCATION_MARKER.length) + TRUNCATION_MARKER;
}

/**
 * Cuts `text` to at most `max` characters including the marker. Never returns more than `max`
 * characters: below the marker's own length, the marker is what gets cut.
 */
export function capText(text: string, max: number): { text: string; truncated: boolean } {
  if (text.length <= max) return { text, truncated: false };
  return { text: cutWithMarker(text, max), truncated: true };
}

/**
 * The longest head of `json` (ending in the marker) whose JSON string literal, quotes excluded,
 * fits `room` characters. `json` is JSON.stringify output, so the only characters that escaping a
 * second time lengthens are `"` and `\` (two characters each); raw controls and lone surrogates
 * never occur in it.
 */
function jsonPreview(json: string, room: number): string {
  const avail = room - TRUNCATION_MARKER.length;
  if (avail < 0) return '';
  let cost = 0;
  let end = 0;
  for (; end < json.length; end++) {
    const unit = json.charCodeAt(end);
    const width = unit === 0x22 || unit === 0x5c ? 2 : 1;
    if (cost + width > avail) break;
    cost += width;
  }
  return headOf(json, end) + TRUNCATION_MARKER;
}

function omittedMarker(block: ContentBlock): ContentBlock {
  return { type: 'text', text: `[${block.type} content omitted by hermes-mcp-gateway]` };
}

export function normalizeResult(outcome: ToolOutcome, options: NormalizeOptions): McpToolResult {
  const { maxChars } = options;
  const blocks: ContentBlock[] = [];
  let structured: Record<string, unknown> | undefined;
  let budget = maxChars;

  if (outcome.structured !== undefined) {
    // A file tool's outcome is redacted already, in file-read mode, and terminal output in the mode
    // Hermes picks for it: redacting either again here would mask what that mode leaves (code
    // assignments) in the default mode's head/tail form.
    const redacted = outcome.redacted !== undefined ? outcome.structured : redactDeep(outcome.structured);
    structured = redacted;
    let json = JSON.stringify(redacted);
    if (json.length > maxChars) {
      // A cut JSON document is not JSON: replace the structure by an explicit truncation receipt
      // whose preview keeps the head of the serialized value. The preview is sized by its escaped
      // length, so the receipt's own JSON fits the cap (a receipt with an empty preview is the
      // floor for caps too small to hold even that).
      const receipt: Record<string, unknown> = { truncated: true, original_chars: json.length, preview: '' };
      if (outcome.isError && typeof redacted.error === 'string') receipt.error = redacted.error;
      receipt.preview = jsonPreview(json, maxChars - JSON.stringify(receipt).length);
      structured = receipt;
      json = JSON.stringify(receipt);
    }
    blocks.push({ type: 'text', text: json });
    budget -= json.length;
  }

  // Text shares what the mirror left of the cap. When it does not all fit, the block where the
  // budget runs out is cut so that the marker fits too, and later text blocks are dropped: the
  // output never exceeds the cap, and a cut is always followed by the marker.
  const texts = new Map<ContentBlock, string>();
  let textChars = 0;
  for (const block of outcome.content ?? []) {
    if (block.type === 'text' && typeof block.text === 'string') {
      const text = redact(block.text);
      texts.set(block, text);
      textChars += text.length;
    }
  }
  const cutting = textChars > budget;
  for (const block of outcome.content ?? []) {
    const text = texts.get(block);
    if (text !== undefined) {
      if (!cutting || text.length <= budget - TRUNCATION_MARKER.length) {
        blocks.push({ type: 'text', text });
        budget -= text.length;
        continue;
      }
      const cut = cutWithMarker(text, budget);
      if (cut !== '') blocks.push({ type: 'text', text: cut });
      break;
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
