import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { packageRoot } from '../../shared/package-root.js';
import type { DemoGateway } from './demo.js';

// The examples/ clients and what each must print against a gateway serving a fresh demo home: the
// same for the TypeScript and the Python SDK (the examples print the same lines), so the two test
// files check them alike. An example is run as its README says, as a process, and judged by its
// output, never by exit status alone.

export const DEMO_PROJECT = join(packageRoot(), 'policy', 'demo-project');

/** The six public tools, in the order tools/list gives them. */
export const SIX = ['tool_search', 'tool_describe', 'tool_call', 'startup_context', 'memory_context', 'skills_list'];

/** unittest's summary of the demo project's tests: they ran and passed. */
export const UNITTEST_OK = /^Ran [1-9]\d* tests? in [0-9.]+s\n\nOK$/m;

/** The demo README as read_file shows it: each line numbered `N|`. */
export function numberedReadme(): string {
  return readFileSync(join(DEMO_PROJECT, 'README.md'), 'utf8').trimEnd().split('\n').map((l, i) => `${i + 1}|${l}`).join('\n');
}

export interface Example {
  /** The file's name without extension, as in the TypeScript folder (`list-tools`); Python's uses `_`. */
  name: string;
  check(stdout: string, gw: DemoGateway): void;
}

export const EXAMPLES: readonly Example[] = [
  {
    name: 'list-tools',
    check: (out) => assert.deepEqual(out.split('\n').slice(1).filter(Boolean).map((l) => l.slice(0, l.indexOf(':'))), SIX),
  },
  {
    name: 'tool-search',
    check: (out) => {
      assert.match(out, /^\d+ deferred tools; best matches:$/m);
      assert.match(out, /^ {2}read a file: read_file(, |$)/m);
      assert.match(out, /^ {2}run a long build: .*\bjob_prepare\b/m);
    },
  },
  {
    name: 'read-file',
    check: (out) => assert.ok(out.includes(`lines:\n${numberedReadme()}\n`), `the demo README, numbered:\n${out}`),
  },
  {
    name: 'terminal',
    check: (out) => {
      assert.match(out, /^\$ python3 -m unittest -v {2}\(exit 0\)$/m);
      assert.match(out, UNITTEST_OK);
    },
  },
  {
    name: 'execute-code',
    check: (out) => {
      assert.match(out, /^status success:$/m);
      assert.match(out, /^42 Hello, demo!$/m);
    },
  },
  {
    name: 'job',
    check: (out, gw) => {
      assert.match(out, /^prepared job_[0-9a-f]{24} \(workdir \.\)$/m);
      // The relative workdir resolved against a new session's current directory: the project root.
      assert.match(out, new RegExp(`^started in ${gw.root.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: (starting|running|succeeded)$`, 'm'));
      assert.match(out, /^succeeded \(exit 0\); output:$/m);
      assert.match(out, UNITTEST_OK);
    },
  },
];

/** The first line every example prints: the URL and the protocol version the SDK settled on. */
export function assertConnected(out: string, url: string, era: 'modern' | 'legacy'): void {
  const first = out.split('\n')[0] ?? '';
  assert.ok(first.startsWith(`connected to ${url}: protocol `), first);
  if (era === 'modern') assert.match(first, /protocol 2026-07-28\b/);
  else assert.match(first, /protocol 2025-\d\d-\d\d\b/);
}

const execFileAsync = promisify(execFile);

/** Runs one example to its end: its stdout; a failure (exit status not 0) throws with its stderr. */
export async function runExample(command: string, args: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<string> {
  try {
    const { stdout } = await execFileAsync(command, [...args], { cwd: packageRoot(), env, timeout: 90_000, maxBuffer: 4 * 1024 * 1024 });
    return stdout;
  } catch (e) {
    const { stdout = '', stderr = '' } = e as { stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(' ')} failed: ${(e as Error).message}\nstdout:\n${stdout}\nstderr:\n${stderr}`);
  }
}

/** The example files of a folder of examples/ (every file but the shared connect module), without extension. */
export function exampleFiles(folder: 'typescript' | 'python'): string[] {
  const ext = folder === 'typescript' ? '.ts' : '.py';
  return readdirSync(join(packageRoot(), 'examples', folder))
    .filter((f) => f.endsWith(ext) && !f.startsWith('connect.'))
    .map((f) => f.slice(0, -ext.length))
    .sort();
}

/** The examples README's text. */
export function examplesReadme(): string {
  return readFileSync(join(packageRoot(), 'examples', 'README.md'), 'utf8');
}
