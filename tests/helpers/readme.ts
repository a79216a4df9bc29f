import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { CURL, ensurePackage } from '../../scripts/test-prerequisites.js';
import { packageRoot } from '../../shared/package-root.js';

// The checked blocks of the README and the docs: a fenced block directly after an HTML comment
// `<!-- docs-check: NAME ... -->` (invisible when rendered, and it moves with the block when the
// page is edited). A check that finds no block under its marker fails instead of passing empty.

/**
 * The bodies of the fenced blocks marked `<!-- docs-check: name ...-->` in `page` (a path from the
 * package root: README.md, docs/connect-chatgpt.md, ...); throws when there is none.
 */
export function markedBlocks(name: string, page = 'README.md'): string[] {
  const lines = readFileSync(join(packageRoot(), page), 'utf8').split('\n');
  const marker = new RegExp(`^\\s*<!-- docs-check: ${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(\\s.*)?-->\\s*$`);
  const blocks: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!marker.test(lines[i]!)) continue;
    const fence = /^(\s*)(```+|~~~+)/.exec(lines[i + 1] ?? '');
    if (!fence) throw new Error(`${page} line ${i + 1}: the docs-check marker "${name}" is not directly followed by a fenced block`);
    const end = lines.findIndex((l, j) => j > i + 1 && l.trimStart().startsWith(fence[2]!));
    if (end < 0) throw new Error(`${page} line ${i + 2}: the block marked "${name}" is never closed`);
    blocks.push(lines.slice(i + 2, end).map((l) => l.slice(fence[1]!.length)).join('\n'));
  }
  if (blocks.length === 0) throw new Error(`${page} has no block marked <!-- docs-check: ${name} -->`);
  return blocks;
}

/** The shell commands of a block: continuation lines (trailing `\`) joined, comments and blank lines dropped. */
export function shellCommands(block: string): string[] {
  const commands: string[] = [];
  let current = '';
  for (const line of block.split('\n')) {
    if (!current && (line.trim() === '' || line.trimStart().startsWith('#'))) continue;
    if (line.endsWith('\\')) {
      current += line.slice(0, -1);
      continue;
    }
    commands.push((current + line).trim());
    current = '';
  }
  if (current) commands.push(current.trim());
  return commands;
}

/** The origin the documented commands address: the gateway's default loopback URL. */
export const README_ORIGIN = 'http://127.0.0.1:3060';

const execFileAsync = promisify(execFile);

/**
 * Runs a documented curl line as written, through bash (its quoting as a user's shell reads it),
 * with the documented origin replaced by `baseUrl` (a test gateway). Asynchronous: the gateway answering
 * it runs in this very process. Its stdout.
 */
export async function runReadmeCurl(command: string, baseUrl: string): Promise<string> {
  if (!command.startsWith('curl ')) throw new Error(`not a curl line: ${command}`);
  if (!command.includes(README_ORIGIN)) throw new Error(`not aimed at ${README_ORIGIN}: ${command}`);
  const line = command.replace(/^curl /, `${ensurePackage(CURL)} `).replaceAll(README_ORIGIN, baseUrl);
  const { stdout } = await execFileAsync('bash', ['-c', line], { timeout: 30_000, maxBuffer: 4 * 1024 * 1024 });
  return stdout;
}

/**
 * Runs a documented block as one bash script (its later commands use the variables its earlier
 * ones set), with the documented origin replaced by `baseUrl` and the docs checks' curl first on
 * PATH. Its stdout; a non-zero exit fails with what it printed.
 */
export async function runReadmeBlock(script: string, baseUrl: string): Promise<string> {
  const path = `${dirname(ensurePackage(CURL))}:${process.env.PATH ?? '/usr/bin:/bin'}`;
  const { stdout } = await execFileAsync('bash', ['-c', script.replaceAll(README_ORIGIN, baseUrl)], { timeout: 120_000, maxBuffer: 4 * 1024 * 1024, env: { ...process.env, PATH: path } });
  return stdout;
}
