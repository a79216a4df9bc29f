// A command word as the shell would spell it: the literal substitutions and quotes an approval
// guard must see through (`$(echo rm)`, `${v:-rm}`, `"r"m`) resolved.

const SIMPLE_LITERAL = String.raw`['"]?([a-z0-9_./:@%+=,-]+)['"]?`;
const LITERAL_SUBSTITUTION = new RegExp(String.raw`\$\(\s*(?:echo(?:\s+-[ne]+)*|printf(?:\s+['"]?%s['"]?)?)\s+${SIMPLE_LITERAL}\s*\)|\x60\s*(?:echo(?:\s+-[ne]+)*|printf(?:\s+['"]?%s['"]?)?)\s+${SIMPLE_LITERAL}\s*\x60`, 'gi');

/** How the shell would spell a command word: literal $(echo x) / ${v:-x} / ${v/a/x} and quotes resolved. */
export function deobfuscateWord(word: string): string {
  // Only quotes and $(…) / ${…} / backticks change a word here.
  if (!/[$'"`]/.test(word)) return word;
  let w = word;
  for (let round = 0; round < 2; round++) {
    const before = w;
    w = w
      .replace(LITERAL_SUBSTITUTION, (_m, a?: string, b?: string) => a ?? b ?? '')
      .replace(/\$\{[^}/\s]+\/[^}/]*\/([^}]*)\}/g, '$1')
      .replace(/\$\{[^}:\s]+:-([^}]*)\}/g, '$1')
      .replace(/['"]/g, '');
    if (w === before) break;
  }
  return w;
}
