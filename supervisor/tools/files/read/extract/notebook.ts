import { stripAnsi } from '../../../../../shared/output-cap.js';
import { decodeLenient } from '../../common/index.js';
import { codePoints, formatCount } from '../format.js';
import { ExtractionError, trimNewlines } from './text.js';

// read_file's Jupyter notebooks as text (Hermes tools/read_extract.py `_extract_notebook`): each
// cell under a `# ── Code cell N ──` header, and as Hermes after 0.19 renders them (`outputs`)
// each code cell's outputs after it: streams and tracebacks as text (ANSI stripped, only the last
// carriage-return frame of a line), results as their text/plain or text/markdown, images, HTML and
// widgets as sized placeholders, at most 20,000 characters per cell with a `jq` pointer to the rest.

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const isObject = (v: Json | undefined): v is { [key: string]: Json } => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Notebook source/text fields: a string or a list of string fragments (Hermes `_source_text`). */
function sourceText(source: Json | undefined): string {
  if (typeof source === 'string') return source;
  if (Array.isArray(source)) return source.filter((s): s is string => typeof s === 'string').join('');
  return '';
}

/** Python's `str()` of a JSON value, as an f-string shows it. */
function pyStr(v: Json | undefined): string {
  if (v === undefined || v === null) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return String(v);
  return JSON.stringify(v);
}

/** Python's whitespace (`str.isspace`), which `strip()` removes. */
const PY_SPACE = /[\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/;

function pyRstrip(s: string): string {
  let end = s.length;
  while (end > 0 && PY_SPACE.test(s[end - 1]!)) end--;
  return s.slice(0, end);
}

const isBlank = (s: string): boolean => pyRstrip(s) === '';

/** Python's `s.rstrip(chars)` for a set of single characters. */
function rstripChars(s: string, chars: string): string {
  let end = s.length;
  while (end > 0 && chars.includes(s[end - 1]!)) end--;
  return s.slice(0, end);
}

/** Hermes `_clean_stream_text`: ANSI stripped, CRLF as LF, each line its last carriage-return frame. */
function cleanStreamText(text: string): string {
  return stripAnsi(text)
    .replace(/\r\n/g, '\n')
    .split('\n')
    .map((line) => line.split('\r').filter((f) => f !== '').pop() ?? '')
    .join('\n');
}

/** Python's `round()`: half to even. */
function roundHalfEven(x: number): number {
  const floor = Math.floor(x);
  const diff = x - floor;
  if (diff > 0.5) return floor + 1;
  if (diff < 0.5) return floor;
  return floor % 2 === 0 ? floor : floor + 1;
}

function humanSize(bytes: number): string {
  return bytes >= 1024 ? `${roundHalfEven(bytes / 1024)} KB` : `${bytes} B`;
}

/** Hermes `_base64_bytes`: the approximate decoded size of a base64 payload. */
function base64Bytes(payload: string): number {
  const clean = payload.replace(/[^0-9+/=A-Za-z]/g, '');
  const padding = clean.length - clean.replace(/=+$/, '').length;
  return Math.max(0, Math.floor((clean.length * 3) / 4) - Math.min(2, padding));
}

/** nbformat v3 keeps mime data flat on the output under these keys. */
const V3_MIME_KEYS: ReadonlyArray<readonly [string, string]> = [
  ['png', 'image/png'],
  ['jpeg', 'image/jpeg'],
  ['svg', 'image/svg+xml'],
  ['html', 'text/html'],
];

/** Hermes `_notebook_output_text`: one output as compact text, '' for nothing to show. */
function outputText(output: Json): string {
  if (!isObject(output)) return '';
  const type = output.output_type;
  if (type === 'stream') {
    const body = cleanStreamText(sourceText(output.text ?? ''));
    return isBlank(body) ? '' : body;
  }
  if (type === 'error' || type === 'pyerr') {
    const tb = output.traceback;
    const tbText = cleanStreamText(Array.isArray(tb) ? tb.filter((l): l is string => typeof l === 'string').join('\n') : '');
    const header = rstripChars(`Error: ${pyStr(output.ename ?? '')}: ${pyStr(output.evalue ?? '')}`, ': ');
    return pyRstrip(`${header}\n${tbText}`);
  }
  if (type !== 'execute_result' && type !== 'display_data' && type !== 'pyout') return '';
  let data: Record<string, Json>;
  if (isObject(output.data)) data = output.data;
  else {
    data = typeof output.text === 'string' || Array.isArray(output.text) ? { 'text/plain': output.text } : {};
    for (const [key, mime] of V3_MIME_KEYS) if (key in output) data[mime] = output[key]!;
  }
  if ('application/vnd.jupyter.widget-view+json' in data) return '[interactive widget — omitted]';
  for (const mime of ['text/plain', 'text/markdown']) {
    const body = mime in data ? cleanStreamText(sourceText(data[mime])) : '';
    if (!isBlank(body)) return body;
  }
  for (const [mime, value] of Object.entries(data)) {
    if (mime.startsWith('image/')) return `[${mime} output — ${humanSize(base64Bytes(sourceText(value)))}, omitted]`;
  }
  if ('text/html' in data) return `[text/html output — ${formatCount(codePoints(sourceText(data['text/html'])))} chars, omitted]`;
  const mimes = Object.keys(data).join(', ');
  return `[${mimes || 'unknown'} output — omitted]`;
}

/** Hermes' per-cell output cap (`_MAX_OUTPUT_CHARS`). */
const MAX_OUTPUT_CHARS = 20_000;

/** Python's `shlex.quote`. */
function shellQuote(s: string): string {
  if (s === '') return "''";
  return /[^\w@%+=:,./-]/.test(s) ? `'${s.replace(/'/g, `'"'"'`)}'` : s;
}

/** The first `n` characters (code points) of `s`. */
function headChars(s: string, n: number): string {
  if (s.length <= n) return s;
  return Array.from(s).slice(0, n).join('');
}

/** Hermes `_notebook_outputs`: a code cell's outputs, cut at 20,000 characters with a `jq` pointer to them. */
function cellOutputs(cell: { [key: string]: Json }, jqPointer: string, filename: string): string {
  const outputs = cell.outputs;
  if (!Array.isArray(outputs)) return '';
  const joined = outputs.map(outputText).filter((t) => t !== '').join('\n');
  const length = codePoints(joined);
  if (length <= MAX_OUTPUT_CHARS) return joined;
  const hint = jqPointer && filename ? ` — full output: jq -r '${jqPointer}' ${shellQuote(filename)}` : '';
  return `${headChars(joined, MAX_OUTPUT_CHARS)}\n… [${formatCount(length - MAX_OUTPUT_CHARS)} output chars truncated${hint}]`;
}

const LABELS: Record<string, string> = { markdown: 'Markdown', code: 'Code', raw: 'Raw' };

/**
 * The notebook's text. `outputs`: render code cells' outputs (Hermes after 0.19; it also reads the
 * file as UTF-8 with a byte-order mark dropped). `displayPath`: the notebook's path in the `jq`
 * pointer of a cut output.
 */
export function notebookText(bytes: Buffer, outputs: boolean, displayPath: string): string {
  let nb: Json;
  try {
    let text = decodeLenient(bytes);
    if (outputs && text.startsWith('\ufeff')) text = text.slice(1);
    nb = JSON.parse(text) as Json;
  } catch (e) {
    throw new ExtractionError(`Not a valid notebook: ${(e as Error).message}`);
  }
  if (!isObject(nb)) throw new ExtractionError('Notebook root is not an object');
  const cells: Array<[string, Json]> = [];
  if (Array.isArray(nb.cells)) nb.cells.forEach((cell, i) => cells.push([`.cells[${i}].outputs`, cell]));
  else if (Array.isArray(nb.worksheets)) {
    nb.worksheets.forEach((ws, wi) => {
      if (isObject(ws) && Array.isArray(ws.cells)) ws.cells.forEach((cell, ci) => cells.push([`.worksheets[${wi}].cells[${ci}].outputs`, cell]));
    });
  }
  if (cells.length === 0) throw new ExtractionError('Notebook contains no cells');
  const counts: Record<string, number> = { markdown: 0, code: 0, raw: 0 };
  const out: string[] = [];
  for (const [jqPointer, cell] of cells) {
    if (!isObject(cell)) continue;
    const type = cell.cell_type;
    if (typeof type !== 'string' || !(type in LABELS)) continue;
    counts[type]! += 1;
    const suffix = type !== 'raw' ? ` ${counts[type]}` : '';
    out.push(`# ── ${LABELS[type]} cell${suffix} ──`, trimNewlines(sourceText(cell.source ?? '')), '');
    const rendered = outputs && type === 'code' ? cellOutputs(cell, jqPointer, displayPath) : '';
    if (rendered !== '') out.push(`# ── Output (cell ${counts[type]}) ──`, trimNewlines(rendered), '');
  }
  if (out.length === 0) throw new ExtractionError('Notebook contains no readable cells');
  return trimNewlines(out.join('\n')) + '\n';
}
