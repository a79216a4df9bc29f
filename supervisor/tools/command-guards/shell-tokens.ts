// The arguments of one command as the shell splits them, for the checks that read a program's
// options: Python's shlex as Hermes calls it, and Hermes' _shell_tokens_with_spans (which keeps
// each word's place in the command). Two readings on purpose: each mirrors the Hermes function
// its check uses, and they differ in escapes, `<>` and what they report.

const isSpace = (ch: string) => ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n';

/** The words of `s` as Python's shlex (posix, whitespace_split, `<>` runs their own words, no comments) gives them; null on unbalanced quoting. */
export function shellTokens(s: string): string[] | null {
  const out: string[] = [];
  let i = 0;
  for (;;) {
    while (i < s.length && isSpace(s[i]!)) i++;
    if (i >= s.length) return out;
    if (s[i] === '<' || s[i] === '>') {
      let j = i;
      while (j < s.length && (s[j] === '<' || s[j] === '>')) j++;
      out.push(s.slice(i, j));
      i = j;
      continue;
    }
    let token = '';
    while (i < s.length && !isSpace(s[i]!) && s[i] !== '<' && s[i] !== '>') {
      const ch = s[i]!;
      if (ch === "'") {
        const end = s.indexOf("'", i + 1);
        if (end < 0) return null;
        token += s.slice(i + 1, end);
        i = end + 1;
      } else if (ch === '"') {
        for (i++; ; ) {
          if (i >= s.length) return null;
          const q = s[i]!;
          if (q === '"') {
            i++;
            break;
          }
          if (q === '\\' && (s[i + 1] === '"' || s[i + 1] === '\\')) {
            token += s[i + 1];
            i += 2;
          } else {
            token += q;
            i++;
          }
        }
      } else if (ch === '\\') {
        if (i + 1 >= s.length) return null;
        token += s[i + 1];
        i += 2;
      } else {
        token += ch;
        i++;
      }
    }
    out.push(token);
  }
}

export interface SpanToken {
  value: string;
  start: number;
  end: number;
  /** Wholly single-quoted (or NAME='…'): inert data to the shell. */
  inert: boolean;
}

/** Hermes' _shell_tokens_with_spans: words with their source spans from `start`; null on unbalanced quoting. */
export function tokensWithSpans(segment: string, start: number): SpanToken[] | null {
  const out: SpanToken[] = [];
  let i = start;
  while (i < segment.length) {
    while (i < segment.length && isSpace(segment[i]!)) i++;
    if (i >= segment.length) break;
    const from = i;
    let value = '';
    let quote = '';
    while (i < segment.length && (quote || !isSpace(segment[i]!))) {
      const ch = segment[i]!;
      if (quote) {
        if (ch === quote) {
          quote = '';
          i++;
        } else if (ch === '\\' && quote === '"' && i + 1 < segment.length) {
          value += segment[i + 1];
          i += 2;
        } else {
          value += ch;
          i++;
        }
      } else if (ch === "'" || ch === '"') {
        quote = ch;
        i++;
      } else if (ch === '\\') {
        if (i + 1 >= segment.length) return null;
        value += segment[i + 1];
        i += 2;
      } else {
        value += ch;
        i++;
      }
    }
    if (quote) return null;
    const raw = segment.slice(from, i);
    out.push({ value, start: from, end: i, inert: (raw.startsWith("'") && raw.endsWith("'") && raw.length > 1) || (raw.includes("='") && raw.endsWith("'")) });
  }
  return out;
}

/** `--option=value` as [option, value]; [token, null] without `=`. */
export function splitOption(token: string): [string, string | null] {
  const eq = token.indexOf('=');
  return eq < 0 ? [token, null] : [token.slice(0, eq), token.slice(eq + 1)];
}
