import { el } from './dom.js';

// A terminal's colours without a terminal: SGR sequences (ESC [ ... m) become classes on text
// spans; every other escape or control sequence (cursor moves, OSC titles and hyperlinks) is
// dropped. Only numbers decide a colour, so a crafted sequence can set a colour or nothing.

const CSI = /\x1b\[([0-9;:?]*)([@-~])/y;
const OSC = /\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?/y;
const OTHER_ESC = /\x1b[@-_]?/y;
const CONTROL = /[\x00-\x08\x0b\x0c\x0e-\x1a\x1c-\x1f\x7f]/;

interface Style {
  fg?: number | string;
  bg?: number | string;
  bold?: boolean;
  dim?: boolean;
  italic?: boolean;
  underline?: boolean;
  inverse?: boolean;
}

/** The 256-colour palette beyond the 16 themed ones, as rgb(). */
function xterm256(n: number): string {
  if (n >= 232) {
    const v = 8 + (n - 232) * 10;
    return `rgb(${v}, ${v}, ${v})`;
  }
  const i = n - 16;
  const c = (k: number) => (k === 0 ? 0 : 55 + k * 40);
  return `rgb(${c(Math.floor(i / 36))}, ${c(Math.floor(i / 6) % 6)}, ${c(i % 6)})`;
}

function applySgr(style: Style, params: number[]): Style {
  const next = { ...style };
  if (params.length === 0) params = [0];
  for (let i = 0; i < params.length; i++) {
    const p = params[i]!;
    if (p === 0) for (const k of Object.keys(next) as Array<keyof Style>) delete next[k];
    else if (p === 1) next.bold = true;
    else if (p === 2) next.dim = true;
    else if (p === 3) next.italic = true;
    else if (p === 4) next.underline = true;
    else if (p === 7) next.inverse = true;
    else if (p === 22) delete next.bold, delete next.dim;
    else if (p === 23) delete next.italic;
    else if (p === 24) delete next.underline;
    else if (p === 27) delete next.inverse;
    else if (p >= 30 && p <= 37) next.fg = p - 30;
    else if (p >= 90 && p <= 97) next.fg = p - 90 + 8;
    else if (p === 39) delete next.fg;
    else if (p >= 40 && p <= 47) next.bg = p - 40;
    else if (p >= 100 && p <= 107) next.bg = p - 100 + 8;
    else if (p === 49) delete next.bg;
    else if (p === 38 || p === 48) {
      const key = p === 38 ? 'fg' : 'bg';
      if (params[i + 1] === 5 && params[i + 2] !== undefined) {
        const n = Math.min(255, params[i + 2]!);
        next[key] = n < 16 ? n : xterm256(n);
        i += 2;
      } else if (params[i + 1] === 2 && params[i + 4] !== undefined) {
        const [r, g, b] = [params[i + 2]!, params[i + 3]!, params[i + 4]!].map((v) => Math.min(255, v));
        next[key] = `rgb(${r}, ${g}, ${b})`;
        i += 4;
      }
    }
  }
  return next;
}

function span(text: string, style: Style): Node {
  if (Object.keys(style).length === 0) return document.createTextNode(text);
  const s = el('span', undefined, text);
  const fg = style.inverse ? style.bg : style.fg;
  const bg = style.inverse ? (style.fg ?? 'inverse') : style.bg;
  if (typeof fg === 'number') s.classList.add(`ansi-fg-${fg}`);
  else if (typeof fg === 'string') s.style.color = fg;
  if (bg === 'inverse') s.classList.add('ansi-inverse');
  else if (typeof bg === 'number') s.classList.add(`ansi-bg-${bg}`);
  else if (typeof bg === 'string') s.style.backgroundColor = bg;
  if (style.bold) s.classList.add('ansi-bold');
  if (style.dim) s.classList.add('ansi-dim');
  if (style.italic) s.classList.add('ansi-italic');
  if (style.underline) s.classList.add('ansi-underline');
  return s;
}

/** `text` as a <pre> of text nodes and coloured spans. */
export function ansiBlock(text: string, className = 'terminal'): HTMLPreElement {
  const pre = el('pre', className);
  let style: Style = {};
  let plain = '';
  const flush = () => {
    if (plain) pre.append(span(plain, style));
    plain = '';
  };
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === '\x1b') {
      CSI.lastIndex = i;
      const csi = CSI.exec(text);
      if (csi) {
        if (csi[2] === 'm') {
          flush();
          style = applySgr(style, csi[1]!.split(/[;:]/).filter((p) => p !== '').map((p) => Number.parseInt(p, 10) || 0));
        }
        i = CSI.lastIndex;
        continue;
      }
      OSC.lastIndex = i;
      if (OSC.exec(text)) {
        i = OSC.lastIndex;
        continue;
      }
      OTHER_ESC.lastIndex = i;
      OTHER_ESC.exec(text);
      i = Math.max(OTHER_ESC.lastIndex, i + 1);
      continue;
    }
    if (ch === '\r') {
      // A carriage return before a newline is a line end; elsewhere the line is being redrawn.
      if (text[i + 1] !== '\n') {
        const lineStart = plain.lastIndexOf('\n') + 1;
        plain = plain.slice(0, lineStart);
      }
      i++;
      continue;
    }
    if (!CONTROL.test(ch)) plain += ch;
    i++;
  }
  flush();
  return pre;
}
