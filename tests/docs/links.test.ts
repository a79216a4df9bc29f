import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { test } from 'node:test';
import { packageRoot } from '../../shared/package-root.js';

// Every relative link of the README, ARCHITECTURE.md, docs/, examples/ and the bench results resolves: the
// file (or directory) exists, and an #anchor names a heading of the Markdown page it points into,
// as GitHub makes anchors from headings. Links in code blocks and code spans are not links.

const root = packageRoot();

function markdownPages(): string[] {
  const docs = (readdirSync(join(root, 'docs'), { recursive: true, encoding: 'utf8' }) as string[]).filter((f) => f.endsWith('.md')).map((f) => join('docs', f));
  return ['README.md', 'ARCHITECTURE.md', join('bench', 'RESULTS.md'), join('examples', 'README.md'), ...docs];
}

/** The page's lines outside fenced code blocks. */
function prose(text: string): string[] {
  const out: string[] = [];
  let fence: string | undefined;
  for (const line of text.split('\n')) {
    const m = /^\s*(```+|~~~+)/.exec(line);
    if (m) {
      if (fence === undefined) fence = m[1]![0]!.repeat(3);
      else if (m[1]!.startsWith(fence)) fence = undefined;
      continue;
    }
    if (fence === undefined) out.push(line);
  }
  return out;
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const line of prose(text)) {
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const base = m[1]!
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

function links(text: string): string[] {
  const out: string[] = [];
  for (const line of prose(text)) {
    const plain = line.replace(/`[^`]*`/g, '');
    for (const m of plain.matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) out.push(m[1]!);
  }
  return out;
}

test('anchors are made as GitHub makes them', () => {
  assert.deepEqual([...anchors("# Hermes' tools (web, vision)\n## `execute_code`\n```\n# not a heading\n```\n## Terminal (PTY) jobs\n## Limits\n## Limits\n")], [
    'hermes-tools-web-vision',
    'execute_code',
    'terminal-pty-jobs',
    'limits',
    'limits-1',
  ]);
});

test('every relative link in the README, ARCHITECTURE.md and docs/ resolves', () => {
  const pages = markdownPages();
  assert.ok(pages.length > 15, pages.join(' '));
  const broken: string[] = [];
  let checked = 0;
  for (const page of pages) {
    const text = readFileSync(join(root, page), 'utf8');
    for (const target of links(text)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:, file:
      checked++;
      const [path, anchor] = target.split('#', 2) as [string, string | undefined];
      const file = path === '' ? join(root, page) : join(root, dirname(page), decodeURI(path));
      if (!existsSync(file)) {
        broken.push(`${page}: ${target} (no ${relative(root, file)})`);
        continue;
      }
      if (anchor === undefined || !file.endsWith('.md') || statSync(file).isDirectory()) continue;
      if (!anchors(readFileSync(file, 'utf8')).has(anchor)) broken.push(`${page}: ${target} (no heading #${anchor} in ${relative(root, file)})`);
    }
  }
  assert.ok(checked > 100, `only ${checked} relative links found`);
  assert.deepEqual(broken, []);
});
