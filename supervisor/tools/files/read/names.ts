import { readdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

// read_file's second look for a missing file (Hermes `ShellFileOperations._unicode_variant_match`,
// tools/file_operations.py): a name that renders the same as the one asked for but differs in its
// code points (NFC against NFD, a no-break space, a curly quote) cannot be found by retyping it,
// so the one entry of the directory that is the same name up to those differences is read instead.

/** Upstream's `_CONFUSABLES`, collapsed after NFC. */
const CONFUSABLES: ReadonlyArray<readonly [string, string]> = [
  ['\u202f', ' '], // narrow no-break space (macOS screenshots)
  ['\u00a0', ' '], // no-break space
  ['\u2019', "'"], // right single quotation mark (Finder)
  ['\u2018', "'"], // left single quotation mark
];

function canonical(name: string): string {
  let out = name.normalize('NFC');
  for (const [from, to] of CONFUSABLES) out = out.split(from).join(to);
  return out;
}

/**
 * The entry beside `path` whose name is unicode-equivalent to its own, when exactly one is (several
 * would be a homoglyph collision: guessing could read the wrong file). As upstream lists with
 * `ls -1`, names starting with a dot are not candidates.
 */
export async function unicodeVariant(path: string): Promise<string | null> {
  const dir = dirname(path);
  const name = basename(path);
  if (name === '') return null;
  let entries: string[];
  try {
    entries = await readdir(dir);
  } catch {
    return null;
  }
  const target = canonical(name);
  const matches = entries.filter((e) => !e.startsWith('.') && e !== name && canonical(e) === target);
  return matches.length === 1 ? join(dir, matches[0]!) : null;
}

/** Upstream's note on a read that found the file under its unicode-equivalent name. */
export function variantNote(asked: string, found: string): string {
  return (
    `Note: '${asked}' not found byte-for-byte; resolved to the unicode-equivalent file '${found}' ` +
    '(invisible encoding difference: NFC/NFD or special space/quote characters).'
  );
}
