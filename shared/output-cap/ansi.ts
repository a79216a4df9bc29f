// ANSI escape stripping for shared/output-cap.ts.

// ---------------------------------------------------------------------------------------------
// ANSI stripping
// ---------------------------------------------------------------------------------------------

// Same fast-path gate as Hermes' `_HAS_ESCAPE`: without ESC or an 8-bit C1 control nothing can match.
const HAS_ESCAPE_RE = /[\x1b\x80-\x9f]/;

/**
 * Forward `indexOf` with memory. Scan positions only ever increase, so a found index that is still
 * ahead of the scan is still the nearest one, and "none from here" stays "none" further on: each
 * needle's searches cover disjoint stretches, keeping the whole strip linear even on input full of
 * unterminated OSC/DCS openers (which make the plain regex quadratic).
 */
class ForwardFinder {
  private from = 0;
  private at = -2; // -2: not searched yet
  constructor(
    private readonly text: string,
    private readonly needle: string,
  ) {}

  next(from: number): number {
    if (this.at !== -2 && this.from <= from && (this.at === -1 || this.at >= from)) return this.at;
    this.from = from;
    this.at = this.text.indexOf(this.needle, from);
    return this.at;
  }
}

function inRange(c: number, lo: number, hi: number): boolean {
  return c >= lo && c <= hi;
}

/** End (exclusive) of `[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]` starting at k, or -1. */
function csiEnd(text: string, k: number): number {
  const n = text.length;
  while (k < n && inRange(text.charCodeAt(k), 0x30, 0x3f)) k++;
  while (k < n && inRange(text.charCodeAt(k), 0x20, 0x2f)) k++;
  return k < n && inRange(text.charCodeAt(k), 0x40, 0x7e) ? k + 1 : -1;
}

/** Smaller of two indexOf results, ignoring -1. */
function nearest(a: number, b: number): number {
  if (a < 0) return b;
  if (b < 0) return a;
  return Math.min(a, b);
}

/**
 * Remove ANSI escape sequences. Exactly the matches of Hermes' `_ANSI_ESCAPE_RE`, left to right:
 *
 *   \x1b( \[[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]     CSI
 *        | \][\s\S]*?(\x07|\x1b\\)                  OSC (BEL or ST)
 *        | [PX^_][\s\S]*?\x1b\\                     DCS / SOS / PM / APC
 *        | [\x20-\x2f]+[\x30-\x7e]                  nF
 *        | [\x30-\x7e] )                            Fp / Fe / Fs
 *   | \x9b[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]        8-bit CSI
 *   | \x9d[\s\S]*?(\x07|\x9c)                       8-bit OSC
 *   | [\x80-\x9f]                                   other 8-bit C1
 *
 * An unterminated OSC/DCS opener therefore falls back to the two-character Fe form (`ESC ]`).
 */
export function stripAnsi(text: string): string {
  return removeSequences(text, false);
}

/**
 * stripAnsi, except that SGR sequences (`ESC [` digits, `;` and `:` only, then `m`: colours and
 * text attributes) stay where they are. Everything stripAnsi removes besides them is removed the
 * same way, so removing the SGR sequences from the result gives what stripAnsi gives. It is the
 * styled twin of a plain text, for a view that renders colours (supervisor/core/styled.ts).
 */
export function keepSgrOnly(text: string): string {
  return removeSequences(text, true);
}

/** Whether text[start, end) is an SGR sequence. */
function isSgr(text: string, start: number, end: number): boolean {
  if (text.charCodeAt(start) !== 0x1b || text.charCodeAt(start + 1) !== 0x5b || text.charCodeAt(end - 1) !== 0x6d /* m */) return false;
  for (let k = start + 2; k < end - 1; k++) {
    const c = text.charCodeAt(k);
    if (!inRange(c, 0x30, 0x3b)) return false; // 0-9 : ;
  }
  return true;
}

function removeSequences(text: string, keepSgr: boolean): string {
  if (!text || !HAS_ESCAPE_RE.test(text)) return text;
  const n = text.length;
  const bel = new ForwardFinder(text, '\x07');
  const st = new ForwardFinder(text, '\x1b\\');
  const st8 = new ForwardFinder(text, '\x9c');
  const parts: string[] = [];
  let copyFrom = 0;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    let end = -1;
    if (c === 0x1b) {
      if (i + 1 < n) {
        const d = text.charCodeAt(i + 1);
        if (d === 0x5b /* [ */) {
          end = csiEnd(text, i + 2);
          if (end < 0) end = i + 2; // falls back to Fe `ESC [`
        } else if (d === 0x5d /* ] */) {
          const b = bel.next(i + 2);
          const s = st.next(i + 2);
          const p = nearest(b, s);
          end = p < 0 ? i + 2 : p === b ? p + 1 : p + 2;
        } else if (d === 0x50 || d === 0x58 || d === 0x5e || d === 0x5f /* P X ^ _ */) {
          const s = st.next(i + 2);
          end = s < 0 ? i + 2 : s + 2;
        } else if (inRange(d, 0x20, 0x2f)) {
          let k = i + 2;
          while (k < n && inRange(text.charCodeAt(k), 0x20, 0x2f)) k++;
          if (k < n && inRange(text.charCodeAt(k), 0x30, 0x7e)) end = k + 1;
        } else if (inRange(d, 0x30, 0x7e)) {
          end = i + 2;
        }
      }
    } else if (c === 0x9b) {
      end = csiEnd(text, i + 1);
      if (end < 0) end = i + 1; // bare C1
    } else if (c === 0x9d) {
      const p = nearest(bel.next(i + 1), st8.next(i + 1));
      end = p < 0 ? i + 1 : p + 1;
    } else if (inRange(c, 0x80, 0x9f)) {
      end = i + 1;
    }
    if (end > i && keepSgr && isSgr(text, i, end)) {
      i = end;
    } else if (end > i) {
      if (copyFrom < i) parts.push(text.slice(copyFrom, i));
      i = end;
      copyFrom = end;
    } else {
      i++;
    }
  }
  if (copyFrom === 0) return text;
  if (copyFrom < n) parts.push(text.slice(copyFrom));
  return parts.join('');
}
