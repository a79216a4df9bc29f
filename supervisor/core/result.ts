import { GatewayError, type ErrorCode } from '../../shared/errors.js';
import { redact, redactCommandOutput, redactDeep, type CommandPlace } from '../../shared/redact.js';
import { STYLED_META_KEY, withoutSgr } from './styled.js';
import type { ContentBlock, NormalizedToolResult, ResultRedaction, ToolDefinition, ToolOutcome } from './tool-types.js';

// What a tool result becomes on its way out, the two steps of the pipeline (core/pipeline.ts) that
// touch it: redactOutcome redacts it once, in the mode its tool declares (ToolDefinition.redaction),
// as soon as the handler returns; normalizeResult then makes the MCP result: secrets redacted (the
// default mode, unless the tool's mode already did), text capped with an explicit marker,
// structuredContent kept and mirrored as one JSON text block (the MCP spec's advice for clients
// that only read text), non-text content replaced by a marker unless the tool returns images, and
// the styled twins of its text that still match it in `_meta` (core/styled.ts).

export const TRUNCATION_MARKER = '...[truncated by hermes-mcp-gateway]';

type McpToolResult = NormalizedToolResult;

export interface NormalizeOptions {
  maxChars: number;
  allowImages?: boolean;
}

/**
 * The outcome of a tool that hands file content to the agent (read_file, search_files): every
 * string of `structured` redacted once, in Hermes' file-read mode (`secretFile` for a
 * secret-bearing file), and marked so that normalizeResult does not redact it again.
 */
export function fileReadOutcome(structured: Record<string, unknown>, options: { secretFile?: boolean } = {}): ToolOutcome {
  return { structured: redactDeep(structured, { fileRead: true, secretFile: options.secretFile === true }), redacted: 'file-read' };
}

// The markers the redaction writes in place of a secret (`«redacted:ghp_…»`, `«redacted-secret»`):
// write_file and patch refuse to put new ones in a file.
export { REDACTION_MARKER_RE } from '../../shared/redact/mask.js';

/** Whether the file-read redaction (`secretFile` for a secret-bearing file) changes `text`: a page the agent saw altered is not the file as it is. */
export function fileReadRedactionChanges(text: string, secretFile: boolean): boolean {
  return redact(text, { fileRead: true, secretFile }) !== text;
}

/**
 * A `file-search` result redacted: every string in file-read mode, each element of `matches`
 * whose `path` is one of `secretFiles` also with the assignment passes (`secret_file=True`).
 */
function redactSearchResult(structured: Record<string, unknown>, secretFiles: readonly string[]): Record<string, unknown> {
  const { matches, ...rest } = structured;
  const out = redactDeep(rest, { fileRead: true, secretFile: false });
  if (!Array.isArray(matches)) return matches === undefined ? out : { ...redactDeep({ matches }, { fileRead: true, secretFile: false }), ...out };
  const secret = new Set(secretFiles);
  return { matches: matches.map((m: unknown) => redactDeep(m, { fileRead: true, secretFile: isSecretMatch(m, secret) })), ...out };
}

function isSecretMatch(match: unknown, secret: ReadonlySet<string>): boolean {
  return match !== null && typeof match === 'object' && secret.has(String((match as { path?: unknown }).path));
}

// Which mode a command's output gets (an environment dump, a read of a secret-bearing file, or
// code) is decided in shared/redact/commands.ts.
export { isEnvDumpCommand } from '../../shared/redact.js';
export type { CommandPlace } from '../../shared/redact.js';

/** A command's output inside a `command-output` result, with the command that printed it. */
export class CommandOutput {
  constructor(
    readonly text: string,
    readonly command: string,
    /**
     * Where it ran: the gateway's HERMES_HOME (its config.yaml is one of the secret-bearing files a
     * command may print) and the directory the command ran in (its relative operands name files
     * there; undefined: the gateway's own directory).
     */
    readonly place: CommandPlace = {},
  ) {}
}

/**
 * Marks `text` as what `command` printed, in the result of a `command-output` tool: the pipeline
 * redacts it as Hermes' redact_terminal_output does for that command (the handler says what the
 * text is and where the command ran; which mode that calls for is decided here). A command that
 * printed nothing has nothing to redact: its output is the empty string as it is.
 */
export function commandOutput(text: string, command: string, place: CommandPlace = {}): CommandOutput | '' {
  return text === '' ? '' : new CommandOutput(text, command, place);
}

/**
 * What `command` printed, kept beyond its call: a job's receipt tail, stored in the job database
 * and read back by later calls. Redacted once, as it is stored, as a commandOutput() in a
 * `command-output` result is (redact_terminal_output for that command), so the record at rest holds
 * nothing a result would mask. The handler states what the text is and where the command ran; the
 * job tools' results are then redacted in their own (default) mode like any other.
 */
export function storedCommandOutput(text: string, command: string, place: CommandPlace = {}): string {
  return redactCommandOutput(text, command, place);
}

/**
 * A `command-output` result redacted: each commandOutput() as redact_terminal_output shows it
 * (every assignment pass for a command that prints the environment or a secret-bearing file, code
 * otherwise: shared/redact/commands.ts), every other string as code (a command, as Hermes'
 * process tool shows it, and the gateway's own fields). Arrays and plain objects are rebuilt; the
 * input is not modified.
 */
export function redactCommandResult(value: Record<string, unknown>): Record<string, unknown> {
  return commandResultCopy(value) as Record<string, unknown>;
}

function commandResultCopy(value: unknown): unknown {
  if (typeof value === 'string') return redact(value, { codeFile: true });
  if (value instanceof CommandOutput) return redactCommandOutput(value.text, value.command, value.place);
  if (Array.isArray(value)) return value.map(commandResultCopy);
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = commandResultCopy(v);
    return out;
  }
  return value;
}

/**
 * The pipeline's redaction step: the handler's outcome redacted once, in its tool's mode, and
 * marked so that normalizeResult leaves `structured` as it is. The default mode (`output`) is left
 * to normalizeResult, as is every `content` block, unless the tool has an `afterRedaction` step,
 * which then gets the redacted result at once. The outcome's facts (`secretFile`) stay here.
 */
export function redactOutcome(mode: ResultRedaction | undefined, outcome: ToolOutcome, after?: ToolDefinition['afterRedaction']): ToolOutcome {
  const redacted = redactedInMode(mode, outcome, after !== undefined);
  if (after === undefined || redacted.isError || redacted.structured === undefined || outcome.structured === undefined) return redacted;
  return { ...redacted, structured: after(redacted.structured, outcome.structured) };
}

function redactedInMode(mode: ResultRedaction | undefined, outcome: ToolOutcome, now: boolean): ToolOutcome {
  const { secretFile, secretFiles, ...rest } = outcome;
  if (rest.structured === undefined) return rest;
  switch (mode ?? 'output') {
    case 'output':
      return now ? { ...rest, structured: redactDeep(rest.structured), redacted: 'output' } : rest;
    case 'file-read':
      return { ...rest, ...fileReadOutcome(rest.structured, { secretFile: secretFile === true }) };
    case 'file-search':
      return { ...rest, structured: redactSearchResult(rest.structured, secretFiles ?? []), redacted: mode };
    case 'code-file':
      return { ...rest, structured: redactDeep(rest.structured, { codeFile: true }), redacted: 'code-file' };
    case 'command-output':
      return { ...rest, structured: redactCommandResult(rest.structured), redacted: 'command-output' };
  }
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
    // An outcome the pipeline redacted in its tool's mode (file-read, code-file, command output):
    // redacting it again here would mask what that mode leaves (code assignments) in the default
    // mode's head/tail form.
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
  const styled = structured && outcome.styled ? matchingTwins(outcome.styled, structured) : undefined;
  if (styled) result._meta = { [STYLED_META_KEY]: styled };
  return result;
}

/**
 * The styled twins whose visible text is their field exactly as it is sent (redacted, capped): a
 * twin of a field that redaction or a cap changed is dropped, so the view never gets text the
 * model's result does not hold (core/styled.ts).
 */
function matchingTwins(twins: Record<string, string>, structured: Record<string, unknown>): Record<string, string> | undefined {
  let out: Record<string, string> | undefined;
  for (const [field, twin] of Object.entries(twins)) {
    const sent = Object.hasOwn(structured, field) ? structured[field] : undefined;
    if (typeof sent === 'string' && sent !== '' && withoutSgr(twin) === sent) (out ??= {})[field] = twin;
  }
  return out;
}
