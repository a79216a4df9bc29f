import { STYLED_META_KEY, withoutSgr } from '../../../core/styled.js';
import { ansiBlock } from './ansi.js';
import { collapsible, el } from './dom.js';
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

export function card(kind: string, title: string, ...body: Array<Node | null | undefined | false>): HTMLElement {
  return el('section', `card card-${kind}`, el('header', 'card-title', title), ...body);
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
    el('p', 'error-code', code),
    message ? el('p', 'error-message', message) : null,
    hint ? el('p', 'error-hint', hint) : null,
  );
}

function outputCard(tool: string, result: ToolResult): HTMLElement | null {
  const s = result.structuredContent ?? {};
  if (tool === 'process_manage' && s.output === undefined) return null;
  const output = shownText(result, 'output') ?? '';
  const exit = num(s.exit_code);
  const seconds = num(s.duration_seconds);
  const truncated = s.truncated === true || output.includes('...[truncated by hermes-mcp-gateway]');
  return card(
    'output',
    tool,
    facts([
      ['exit code', exit === undefined ? undefined : String(exit)],
      ['status', str(s.status)],
      ['duration', seconds === undefined ? undefined : `${seconds} s`],
      ['meaning', str(s.exit_code_meaning)],
    ]),
    ansiBlock(output || '(no output)'),
    truncated ? truncationNote('The output was truncated.') : null,
    str(s.error) ? el('p', 'error-message', str(s.error)!) : null,
  );
}

/** A unified diff, one line per row, coloured by its first character. */
export function diffBlock(diff: string): HTMLPreElement {
  const pre = el('pre', 'diff');
  for (const line of diff.replace(/\n$/, '').split('\n')) {
    const kind = line.startsWith('+++') || line.startsWith('---') ? 'file' : line.startsWith('@@') ? 'hunk' : line.startsWith('+') ? 'add' : line.startsWith('-') ? 'del' : 'ctx';
    pre.append(el('span', `diff-line diff-${kind}`, line), '\n');
  }
  return pre;
}

function diffCard(tool: string, s: Structured): HTMLElement | null {
  const files = Array.isArray(s.files_modified) ? s.files_modified.filter((f): f is string => typeof f === 'string') : [];
  const diff = str(s.diff);
  if (!diff && files.length === 0) return null;
  return card(
    'diff',
    tool,
    files.length ? el('ul', 'files', ...files.map((f) => el('li', undefined, f))) : null,
    diff ? diffBlock(diff) : el('p', 'note', `${num(s.bytes_written) ?? 0} bytes written`),
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
    return card('matches', tool, collapsible(`${total ?? ''} lines`.trim(), table), s.truncated === true ? truncationNote('Only part of the file was read.') : null);
  }
  const matches = Array.isArray(s.matches) ? (s.matches as Structured[]) : [];
  const files = Array.isArray(s.files) ? (s.files as unknown[]).filter((f): f is string => typeof f === 'string') : [];
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
  return card('matches', tool, total !== undefined ? el('p', 'note', `${total} matches`) : null, ...blocks, ...(files.length ? [el('ul', 'files', ...files.map((f) => el('li', undefined, f)))] : []));
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

/** The card for a non-job result, or null when the view adds nothing to it. */
export function resultCard(tool: string, result: ToolResult): HTMLElement | null {
  const s = result.structuredContent ?? {};
  if (result.isError === true && typeof s.error === 'string') return errorCard(s, tool);
  if (OUTPUT_TOOLS.has(tool)) return outputCard(tool, result);
  if (DIFF_TOOLS.has(tool)) return diffCard(tool, s);
  if (MATCH_TOOLS.has(tool)) return matchesCard(tool, s);
  if (BROWSER_TOOLS.has(tool)) return browserCard(tool, s, result.content ?? []);
  return null;
}
