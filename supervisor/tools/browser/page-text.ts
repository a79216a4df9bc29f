// What the tools make of Camofox' snapshot text (a Playwright aria snapshot with `[eN]` refs), as
// Hermes does: cut an oversized snapshot at a line boundary with a note (tools/browser_tool.py
// `_truncate_snapshot`: never mid-element, so no ref is half-shown), and read the page's images
// from its `img "alt"` lines and the `/url:` line after each (tools/browser_camofox.py
// camofox_get_images; Camofox' own /images route is not what Hermes uses).

/** Room Hermes keeps for the truncation note (its note without a stored copy), at most half the limit. */
const NOTE_RESERVE = 110;

export function truncateSnapshot(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const lines = text.split('\n');
  const kept: string[] = [];
  let chars = 0;
  const reserve = Math.min(NOTE_RESERVE, Math.floor(maxChars / 2));
  for (const line of lines) {
    if (chars + line.length + 1 > maxChars - reserve) break;
    kept.push(line);
    chars += line.length + 1;
  }
  const remaining = lines.length - kept.length;
  if (remaining > 0) kept.push(`\n[... ${remaining} more lines truncated, use browser_snapshot for full content]`);
  return kept.join('\n');
}

export interface PageImage {
  src: string;
  alt: string;
}

export function imagesOf(snapshot: string): PageImage[] {
  const lines = snapshot.split('\n');
  const images: PageImage[] = [];
  lines.forEach((line, i) => {
    const stripped = line.trim();
    if (!stripped.startsWith('- img ') && !stripped.startsWith('img ')) return;
    const alt = /img\s+"([^"]*)"/.exec(stripped)?.[1] ?? '';
    const src = /\/url:\s*(\S+)/.exec(lines[i + 1]?.trim() ?? '')?.[1] ?? '';
    if (alt || src) images.push({ src, alt });
  });
  return images;
}

/** Hermes strips the leading `@` its own snapshot format puts on refs; Camofox refs are `eN`. */
export function cleanRef(ref: string): string | null {
  const clean = ref.trim().replace(/^@/, '');
  return /^e\d{1,6}$/.test(clean) ? clean : null;
}
