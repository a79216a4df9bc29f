// Python's idea of whitespace, for surfaces that must trim text exactly as Hermes' Python does:
// str.isspace() / str.strip() differ from JavaScript's trim() at U+001C-U+001F and U+0085 (Python
// strips them, JS does not) and at U+FEFF (JS strips it, Python does not).

/** Python's isspace() characters: what str.strip() removes. */
export const PYTHON_WHITESPACE = '\t\n\v\f\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000';

/** Python's str.strip() (no arguments): whitespace as Python counts it removed from both ends. */
export function pythonStrip(s: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && PYTHON_WHITESPACE.includes(s[a]!)) a++;
  while (b > a && PYTHON_WHITESPACE.includes(s[b - 1]!)) b--;
  return s.slice(a, b);
}
