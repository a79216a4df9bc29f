import { redact } from '../../../../shared/redact/pipeline.js';
import { STYLED_META_KEY, withoutSgr } from '../../../core/styled.js';
import { ansiBlock } from './ansi.js';
import { diffBlock, diffFiles } from './diff.js';
import { collapsible, el, hiddenFromReaders, readersOnly } from './dom.js';
import { RECOVERY_HINTS } from './hints.js';

// One card per kind of result, chosen by the deferred tool that answered. Results the view has
// nothing to add to render as nothing (the view then has zero height).

export type Structured = Record<string, unknown>;
export interface ContentBlock {
  type: string;
  text?: string;
  data?: string;
  mimeType?: string;
}
export interface ToolResult {
  structuredContent?: Structured;
  content?: ContentBlock[];
  isError?: boolean;
  _meta?: Record<string, unknown>;
}

export const JOB_TOOLS = new Set(['job_prepare', 'job_start', 'job_status', 'job_cancel', 'job_input']);
const OUTPUT_TOOLS = new Set(['terminal', 'process_manage', 'execute_code']);
const DIFF_TOOLS = new Set(['patch', 'write_file']);
const MATCH_TOOLS = new Set(['search_files', 'read_file']);
const BROWSER_TOOLS = new Set(['browser_navigate', 'browser_snapshot', 'browser_vision', 'browser_get_images']);

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/**
 * A text field of a result as the view shows it: in its colours when the result's `_meta` carries
 * the field's styled twin (supervisor/core/styled.ts) and the twin's text is the field's exactly;
 * otherwise the plain text.
 */
export function shownText(result: ToolResult, field: string): string | undefined {
  const plain = str(result.structuredContent?.[field]);
  const twins = result._meta?.[STYLED_META_KEY];
  const twin = twins !== null && typeof twins === 'object' ? (twins as Record<string, unknown>)[field] : undefined;
  return plain !== undefined && typeof twin === 'string' && withoutSgr(twin) === plain ? twin : plain;
}

/** How a command ended, as the card's badge says it: `failed` marks the card as a failure. */
export interface Outcome {
  failed: boolean;
  label: string;
}

/**
 * The outcome badge: a mark, the outcome in words for screen readers, and the label ("exit 3"), so
 * a failure is never told by colour alone.
 */
export function outcomeBadge(outcome: Outcome): HTMLElement {
  return el(
    'span',
    `outcome outcome-${outcome.failed ? 'failed' : 'ok'}`,
    hiddenFromReaders(el('span', 'outcome-mark', outcome.failed ? '✗ ' : '✓ ')),
    readersOnly(outcome.failed ? 'failed: ' : 'succeeded: '),
    outcome.label,
  );
}

/** A card: its title (the deferred tool), the outcome badge when there is one, and its body. A failure's card is marked `card-failed`. */
export function card(kind: string, title: string, outcome: Outcome | undefined, ...body: Array<Node | null | undefined | false>): HTMLElement {
  const head = el('header', 'card-head', el('span', 'card-title', title), outcome ? outcomeBadge(outcome) : null);
  return el('section', `card card-${kind}${outcome?.failed ? ' card-failed' : ''}`, head, ...body);
}

/** Commands longer than this (or of more than one line) show their start, and the whole on demand. */
const COMMAND_SHOWN_CHARS = 160;

/**
 * The command a card ran, as text. It comes from the call's input, which the host hands the view as
 * the model wrote it: no part of the gateway's result redaction has touched it. So it is redacted
 * here, with the gateway's own redaction in its default mode (the one that masks the most, and the
 * one the gateway's logs use), and the view shows no secret that a result would have masked.
 */
export function commandBlock(command: string): HTMLElement {
  const shown = redact(command.trim());
  const lines = shown.split('\n');
  const first = lines[0]!;
  const cut = first.length > COMMAND_SHOWN_CHARS;
  const short = `${cut ? `${first.slice(0, COMMAND_SHOWN_CHARS - 1)}…` : first}${lines.length > 1 ? ' …' : ''}`;
  const line = el('div', 'command', hiddenFromReaders(el('span', 'prompt', '$ ')), readersOnly('command: '), el('code', 'command-text', short));
  if (!cut && lines.length === 1) return line;
  return el('details', 'command-whole', el('summary', undefined, line), el('pre', 'command-full', shown));
}

function facts(pairs: Array<[string, string | undefined]>): HTMLElement {
  const dl = el('dl', 'facts');
  for (const [k, v] of pairs) if (v !== undefined) dl.append(el('dt', undefined, k), el('dd', undefined, v));
  return dl;
}

export function truncationNote(text: string): HTMLElement {
  return el('p', 'note', text);
}

export function errorCard(structured: Structured, tool?: string): HTMLElement {
  const code = str(structured.error) ?? 'ERROR';
  const message = str(structured.message) ?? '';
  const hint = str(structured.hint) ?? RECOVERY_HINTS[code as keyof typeof RECOVERY_HINTS];
  return card(
    'error',
    tool ? `${tool} failed` : 'Error',
    undefined,
    el('p', 'error-code', code),
    message ? el('p', 'error-message', message) : null,
    hint ? el('p', 'error-hint', hint) : null,
  );
}

/**
 * How a command's run ended: a non-zero exit code, an `error`, or (execute_code) a status other than
 * success is a failure; exit 0 or execute_code's success is not; a process still running has no
 * outcome yet.
 */
export function commandOutcome(tool: string, s: Structured): Outcome | undefined {
  const exit = num(s.exit_code);
  const status = str(s.status);
  const failed = (exit !== undefined && exit !== 0) || str(s.error) !== undefined || (tool === 'execute_code' && status !== undefined && status !== 'success');
  if (exit !== undefined) return { failed, label: `exit ${exit}` };
  if (tool === 'execute_code' && status !== undefined) return { failed, label: status };
  return failed ? { failed, label: 'error' } : undefined;
}

function outputCard(tool: string, result: ToolResult, command: string | undefined): HTMLElement | null {
  const s = result.structuredContent ?? {};
  if (tool === 'process_manage' && s.output === undefined) return null;
  const output = shownText(result, 'output') ?? '';
  const seconds = num(s.duration_seconds);
  const truncated = s.truncated === true || output.includes('...[truncated by hermes-mcp-gateway]');
  // process_manage's result names its process's command (redacted with the rest of the result).
  const ran = command ?? (tool === 'process_manage' ? str(s.command) : undefined);
  return card(
    'output',
    tool,
    commandOutcome(tool, s),
    ran ? commandBlock(ran) : null,
    facts([
      // execute_code's status is its badge already.
      ['status', tool === 'execute_code' ? undefined : str(s.status)],
      ['duration', seconds === undefined ? undefined : `${seconds} s`],
      ['meaning', str(s.exit_code_meaning)],
    ]),
    ansiBlock(output || '(no output)'),
    truncated ? truncationNote('The output was truncated.') : null,
    str(s.error) ? el('p', 'error-message', str(s.error)!) : null,
  );
}

const stringsOf = (v: unknown): string[] => (Array.isArray(v) ? v.filter((f): f is string => typeof f === 'string') : []);

function diffCard(tool: string, s: Structured): HTMLElement | null {
  const files = [...new Set([...stringsOf(s.files_modified), ...stringsOf(s.files_created), ...stringsOf(s.files_deleted)])];
  const diff = str(s.diff);
  if (!diff && files.length === 0) return null;
  const sections = diff ? diffFiles(diff) : [];
  const named = sections.flatMap((f) => f.paths);
  // Files the diff's headings already name are not listed again (a relative header path names the
  // absolute one the result lists).
  const unnamed = files.filter((f) => !named.some((p) => f === p || f.endsWith(`/${p}`)));
  return card(
    'diff',
    tool,
    undefined,
    unnamed.length ? el('ul', 'files', ...unnamed.map((f) => el('li', undefined, f))) : null,
    ...sections.map((f) => el('div', 'diff-file', f.heading ? el('h3', 'diff-path', f.heading) : null, f.lines.length ? diffBlock(f.lines) : null)),
    diff ? null : el('p', 'note', `${num(s.bytes_written) ?? 0} bytes written`),
  );
}

function matchesCard(tool: string, s: Structured): HTMLElement | null {
  if (tool === 'read_file') {
    const content = str(s.content);
    if (content === undefined) return null;
    const table = el('div', 'lines');
    for (const line of content.split('\n')) {
      const m = /^\s*(\d+)\|(.*)$/.exec(line);
      table.append(el('div', 'line', el('span', 'line-no', m ? m[1]! : ''), el('span', 'line-text', m ? m[2]! : line)));
    }
    const total = num(s.total_lines);
    return card('matches', tool, undefined, collapsible(`${total ?? ''} lines`.trim(), table), s.truncated === true ? truncationNote('Only part of the file was read.') : null);
  }
  const matches = Array.isArray(s.matches) ? (s.matches as Structured[]) : [];
  const files = stringsOf(s.files);
  if (matches.length === 0 && files.length === 0) return null;
  const byFile = new Map<string, Structured[]>();
  for (const m of matches) {
    const path = str(m.path) ?? '';
    byFile.set(path, [...(byFile.get(path) ?? []), m]);
  }
  const blocks = [...byFile].map(([path, ms]) =>
    collapsible(
      `${path} (${ms.length})`,
      el('div', 'lines', ...ms.map((m) => el('div', 'line', el('span', 'line-no', String(num(m.line) ?? '')), el('span', 'line-text', str(m.content) ?? '')))),
    ),
  );
  const total = num(s.total_count);
  return card('matches', tool, undefined, total !== undefined ? el('p', 'note', `${total} matches`) : null, ...blocks, ...(files.length ? [el('ul', 'files', ...files.map((f) => el('li', undefined, f)))] : []));
}

const IMAGE_TYPES = /^image\/(png|jpeg|gif|webp)$/;

function browserCard(tool: string, s: Structured, content: ContentBlock[]): HTMLElement | null {
  const images = content.filter((c) => c.type === 'image' && typeof c.data === 'string' && IMAGE_TYPES.test(c.mimeType ?? ''));
  // Camofox reports no page title (browser_navigate answers `title: ''`): an empty one is not shown.
  const title = str(s.title) || str(s.page_title) || undefined;
  const url = str(s.url) ?? str(s.page_url);
  const elements = num(s.element_count);
  const snapshot = str(s.snapshot);
  const listed = Array.isArray(s.images) ? (s.images as Structured[]) : [];
  const analysis = str(s.analysis);
  if (!title && !url && !snapshot && !analysis && images.length === 0 && listed.length === 0) return null;
  return card(
    'browser',
    tool,
    undefined,
    facts([
      ['title', title],
      ['url', url],
      ['elements', elements === undefined ? undefined : String(elements)],
      // browser_vision saves its screenshot on the gateway's host and answers where.
      ['screenshot', str(s.screenshot_path)],
    ]),
    ...images.map((img) => {
      const node = el('img', 'screenshot');
      // A data: URL built from base64 the result carries (checked type): the CSP allows only these.
      if (/^[A-Za-z0-9+/=\s]+$/.test(img.data!)) node.src = `data:${img.mimeType};base64,${img.data}`;
      node.alt = title ? `Screenshot of ${title}` : 'Screenshot';
      return node;
    }),
    // The page's accessibility snapshot, as the model read it, on demand.
    snapshot ? collapsible('page snapshot', el('pre', 'snapshot', snapshot), false) : null,
    listed.length
      ? el('ul', 'files', ...listed.map((i) => el('li', undefined, [str(i.alt), str(i.src) ?? str(i.url)].filter(Boolean).join(': '))))
      : null,
    analysis ? el('p', 'analysis', analysis) : null,
  );
}

/**
 * The card for a non-job result, or null when the view adds nothing to it. `command` is the
 * command the call's input carried (`arguments.command`), as the host handed it to the view.
 */
export function resultCard(tool: string, result: ToolResult, command?: string): HTMLElement | null {
  const s = result.structuredContent ?? {};
  if (result.isError === true && typeof s.error === 'string') return errorCard(s, tool);
  if (OUTPUT_TOOLS.has(tool)) return outputCard(tool, result, command);
  if (DIFF_TOOLS.has(tool)) return diffCard(tool, s);
  if (MATCH_TOOLS.has(tool)) return matchesCard(tool, s);
  if (BROWSER_TOOLS.has(tool)) return browserCard(tool, s, result.content ?? []);
  return null;
}
