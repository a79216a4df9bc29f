import { diffChars } from 'diff';

// The leak check of the redaction fidelity suite (the `hides-all` check divergences name): where the
// gateway's redaction differs from a Hermes version's because it masks more (the union of the
// versions' passes, the less revealing of their masks), the difference is intended only if the
// gateway shows nothing that this Hermes hides.
//
// What Hermes hides of a text is what a character diff from the text to Hermes' answer removes or
// replaces. Each such piece is cut into its alphanumeric runs (3+ characters) and its 4-character
// windows holding an alphanumeric; the gateway's answer must not show any of them more often than
// Hermes' answer does (a head/tail mask shows 10 characters of a key: each of its windows counts).

/** The pieces of `text` that Hermes' answer removed or replaced. */
export function hiddenPieces(text: string, hermes: string): string[] {
  return diffChars(text, hermes)
    .filter((part) => part.removed)
    .map((part) => part.value);
}

function occurrences(haystack: string, needle: string): number {
  let n = 0;
  for (let i = haystack.indexOf(needle); i >= 0; i = haystack.indexOf(needle, i + 1)) n++;
  return n;
}

/** The fragments of what Hermes hid that the gateway shows more often than Hermes does (none: it hides all of it). */
export function leakedPieces(text: string, hermes: string, gateway: string): string[] {
  const leaked = new Set<string>();
  const check = (fragment: string): void => {
    if (occurrences(gateway, fragment) > occurrences(hermes, fragment)) leaked.add(fragment);
  };
  for (const piece of hiddenPieces(text, hermes)) {
    for (const run of piece.match(/[A-Za-z0-9]{3,}/g) ?? []) check(run);
    for (let i = 0; i + 4 <= piece.length; i++) {
      const window = piece.slice(i, i + 4);
      if (/[A-Za-z0-9]/.test(window)) check(window);
    }
  }
  return [...leaked];
}

/** Whether the gateway's answer shows nothing of `text` that Hermes' answer hides. */
export function hidesAll(text: string, hermes: string, gateway: string): boolean {
  return leakedPieces(text, hermes, gateway).length === 0;
}
