// Python's fnmatch.fnmatchcase (Lib/fnmatch.py translate, Python 3.11), which Hermes matches its
// approvals.deny globs with: the whole string, `*` any run of characters (newlines and `/`
// included), `?` one character, `[…]` / `[!…]` a set (ranges by code point, a `]` first is a
// member, an unclosed `[` is a literal), no escaping (a backslash is a literal). Matched
// iteratively in time proportional to the text times the glob, never by backtracking regex.

type Piece = { kind: 'star' } | { kind: 'any' } | { kind: 'char'; ch: string } | { kind: 'set'; re: RegExp } | { kind: 'never' };

/** A compiled glob: its pieces over code points. */
export interface Glob {
  readonly source: string;
  readonly pieces: readonly Piece[];
}

const escapeInClass = (s: string) => s.replace(/[\\\]^-]/g, (c) => `\\${c}`);

/** The members of a set, `stuff` as Python's translate builds it (code points `[i, j)` of the glob), as a JavaScript class body. */
function setBody(pat: string[], i: number, j: number): string | null {
  const text = (from: number, to: number) => pat.slice(from, to).join('');
  let chunks: string[];
  if (!pat.slice(i, j).includes('-')) {
    chunks = [text(i, j)];
  } else {
    chunks = [];
    let k = pat[i] === '!' ? i + 2 : i + 1;
    for (;;) {
      k = pat.indexOf('-', k);
      if (k < 0 || k >= j) break;
      chunks.push(text(i, k));
      i = k + 1;
      k = k + 3;
    }
    const chunk = text(i, j);
    if (chunk) chunks.push(chunk);
    else chunks[chunks.length - 1] += '-';
    // Remove empty ranges (a later start below an earlier end), as Python does.
    for (let m = chunks.length - 1; m > 0; m--) {
      const prev = [...chunks[m - 1]!];
      const cur = [...chunks[m]!];
      if (prev[prev.length - 1]!.codePointAt(0)! > cur[0]!.codePointAt(0)!) {
        chunks[m - 1] = prev.slice(0, -1).join('') + cur.slice(1).join('');
        chunks.splice(m, 1);
      }
    }
  }
  // Each chunk's characters are literal members; the joins between chunks are ranges.
  const joined = chunks.join('-');
  if (joined === '') return null; // empty set: never matches
  if (joined === '!') return '\\s\\S'; // negated empty set: any character
  let negate = false;
  let members = chunks;
  if (joined.startsWith('!')) {
    negate = true;
    members = [...chunks];
    members[0] = members[0]!.slice(1);
  }
  const body = members.map((c) => [...c].map(escapeInClass).join('')).join('-');
  return (negate ? '^' : '') + body;
}

/** Compiles a glob as Python's fnmatch.translate reads it. */
export function compileGlob(source: string): Glob {
  const pat = [...source];
  const pieces: Piece[] = [];
  const n = pat.length;
  let i = 0;
  while (i < n) {
    const c = pat[i++]!;
    if (c === '*') {
      if (pieces.at(-1)?.kind !== 'star') pieces.push({ kind: 'star' });
    } else if (c === '?') {
      pieces.push({ kind: 'any' });
    } else if (c === '[') {
      let j = i;
      if (j < n && pat[j] === '!') j++;
      if (j < n && pat[j] === ']') j++;
      while (j < n && pat[j] !== ']') j++;
      if (j >= n) {
        pieces.push({ kind: 'char', ch: '[' });
      } else {
        const body = setBody(pat, i, j);
        i = j + 1;
        if (body === null) pieces.push({ kind: 'never' });
        else pieces.push({ kind: 'set', re: new RegExp(`^[${body}]$`, 'u') });
      }
    } else {
      pieces.push({ kind: 'char', ch: c });
    }
  }
  return { source, pieces };
}

function matchesOne(piece: Piece, ch: string): boolean {
  switch (piece.kind) {
    case 'any':
      return true;
    case 'char':
      return piece.ch === ch;
    case 'set':
      return piece.re.test(ch);
    default:
      return false;
  }
}

/** Whether `text` as a whole matches `glob` (Python's fnmatchcase). */
export function globMatches(glob: Glob, text: string): boolean {
  const t = [...text];
  const p = glob.pieces;
  let ti = 0;
  let pi = 0;
  let starP = -1;
  let starT = 0;
  while (ti < t.length) {
    const piece = p[pi];
    if (piece && piece.kind === 'star') {
      starP = pi++;
      starT = ti;
    } else if (piece && matchesOne(piece, t[ti]!)) {
      pi++;
      ti++;
    } else if (starP >= 0) {
      pi = starP + 1;
      ti = ++starT;
    } else {
      return false;
    }
  }
  while (p[pi]?.kind === 'star') pi++;
  return pi === p.length;
}
