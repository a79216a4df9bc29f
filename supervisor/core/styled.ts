// The sequence scanner itself, not shared/output-cap.ts: the result view's bundle imports this
// module for STYLED_META_KEY and withoutSgr, and needs nothing else of the output cap.
import { keepSgrOnly } from '../../shared/output-cap/ansi.js';

// Styled twins of plain result text, for the result view (supervisor/http/app-view/).
//
// The model reads a command's output with every terminal sequence stripped, as Hermes shows it.
// The view can show the same text in its colours: a tool's outcome may carry, per top-level string
// field of its structured result, a twin holding that text plus SGR sequences (colours and text
// attributes) and nothing else. normalizeResult (core/result.ts) sends a twin, in the result's
// `_meta` under STYLED_META_KEY, only when removing its SGR sequences gives exactly the field as
// the client receives it: redacted, capped, the same characters. So a twin can never carry a byte
// of content the model's text does not: a field that redaction changed, or a cap cut, has no twin,
// and the view shows the plain text. Hosts give a result's `_meta` to the view, not to the model;
// the MCP endpoint sends it only to clients that render views (http/mcp/endpoint.ts).

/** Where a result's styled twins travel: `_meta[STYLED_META_KEY][field]`. */
export const STYLED_META_KEY = 'hermes-mcp-gateway/styled';

const SGR = /\x1b\[[0-9:;]*m/g;
/** Escape and C1 characters: a twin's visible text never holds one. */
const CONTROL = /[\x1b\x80-\x9f]/;

/** The visible text of a styled twin: its SGR sequences removed. */
export function withoutSgr(styled: string): string {
  return styled.replace(SGR, '');
}

/**
 * The styled twin of `plain`, cut from `raw` (the output before its sequences were stripped, with
 * the same truncation applied): its SGR sequences kept, every other sequence removed as stripAnsi
 * removes it, and only the stretch whose visible text is `plain` (a tail cut, surrounding
 * whitespace stripped) with the SGR sequences before it, so the colour in force at its start holds.
 * Undefined when `raw` has no SGR sequence (nothing to style) or `plain` is not a stretch of its
 * visible text (redaction changed it, for one).
 */
export function styledTwin(raw: string, plain: string): string | undefined {
  if (plain === '' || !raw.includes('\x1b[')) return undefined;
  const styled = keepSgrOnly(raw);
  // Visible pieces between the SGR sequences, with where each starts in `styled`.
  const pieces: Array<{ at: number; text: string }> = [];
  let visible = '';
  let last = 0;
  let sequences = 0;
  for (const m of styled.matchAll(SGR)) {
    if (m.index > last) pieces.push({ at: last, text: styled.slice(last, m.index) });
    last = m.index + m[0].length;
    sequences++;
  }
  if (sequences === 0) return undefined;
  if (last < styled.length) pieces.push({ at: last, text: styled.slice(last) });
  for (const p of pieces) visible += p.text;
  if (CONTROL.test(visible)) return undefined;
  const start = visible.endsWith(plain) ? visible.length - plain.length : visible.indexOf(plain);
  if (start < 0) return undefined;
  const end = start + plain.length;
  // Positions in `styled` of the visible offsets start and end.
  let seen = 0;
  let from = -1;
  let to = styled.length;
  for (const p of pieces) {
    if (from < 0 && start < seen + p.text.length) from = p.at + (start - seen);
    if (end <= seen + p.text.length) {
      to = p.at + (end - seen);
      break;
    }
    seen += p.text.length;
  }
  if (from < 0) return undefined;
  const before = (styled.slice(0, from).match(SGR) ?? []).join('');
  const twin = before + styled.slice(from, to);
  return withoutSgr(twin) === plain ? twin : undefined;
}
