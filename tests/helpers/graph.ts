import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { numericDirs, processStartTime } from '../../shared/proc.js';
import { packageRoot } from '../../shared/package-root.js';
import { viaBridge } from './gateway.js';
import { cmdline } from './procfs.js';

// Graph upstreams for tests, launched through HERMES_MCP_GRAPH_COMMAND like the real one: the
// stand-in (tests/fixtures/graph-upstream.ts) and the real @ttsc/graph. The upstreams run inside
// the graph worker's PID namespace, so the pids they record are that namespace's; the host's view
// of them is found by the marker every test puts in the stand-in's argv.

export const TTSC_GRAPH_BIN = join(packageRoot(), 'node_modules', '@ttsc', 'graph', 'lib', 'bin.js');
export const TTSC_GRAPH_BINARY = join(packageRoot(), 'node_modules', '@ttsc', 'linux-x64', 'bin', 'ttscgraph');
const STAND_IN = join(packageRoot(), 'dist', 'tests', 'fixtures', 'graph-upstream.js');

export interface StandIn {
  /** HERMES_MCP_GRAPH_COMMAND for it. */
  command: string;
  /** Every start, in order: the cwd the session was opened in. */
  starts(): Array<{ pid: number; cwd: string }>;
  /** How many tools/list requests the stand-ins have answered. */
  lists(): number;
  /** The stand-in processes alive on the host now, with their cwd. */
  live(): Array<{ pid: number; cwd: string }>;
}

export function standIn(recordDir: string, ...flags: string[]): StandIn {
  mkdirSync(recordDir, { recursive: true });
  const marker = `graph-standin-${randomBytes(6).toString('hex')}`;
  const file = join(recordDir, 'starts.jsonl');
  const lists = join(recordDir, 'lists.jsonl');
  return {
    command: [process.execPath, STAND_IN, '--record', recordDir, '--marker', marker, ...flags].join(' '),
    starts: () => (existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { pid: number; cwd: string }) : []),
    lists: () => (existsSync(lists) ? readFileSync(lists, 'utf8').trim().split('\n').filter(Boolean).length : 0),
    live: () =>
      numericDirs('/proc')
        .filter((pid) => pid !== process.pid && cmdline(pid).includes(marker) && processStartTime(pid) !== undefined)
        .map((pid) => ({ pid, cwd: cwdOf(pid) })),
  };
}

function cwdOf(pid: number): string {
  try {
    return readlinkSync(`/proc/${pid}/cwd`);
  } catch {
    return '';
  }
}

/** A TypeScript project the real upstream can index (it needs a tsconfig.json). */
export function typescriptProject(dir: string): string {
  mkdirSync(join(dir, 'src'), { recursive: true });
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, target: 'ES2022', module: 'NodeNext' }, include: ['src'] }));
  writeFileSync(
    join(dir, 'src', 'index.ts'),
    [
      'export function shout(s: string): string {',
      '  return s.toUpperCase();',
      '}',
      'export class LoudGreeter {',
      '  greet(name: string): string {',
      '    return shout(`hello ${name}`);',
      '  }',
      '}',
      '',
    ].join('\n'),
  );
  return dir;
}

/** inspect_code_graph through tool_call. */
export function inspect(client: Client, cwd: string, args: Record<string, unknown>) {
  return viaBridge(client, 'inspect_code_graph', { cwd, ...args });
}

/** /readyz's graph component (and the status code). */
export async function graphReadiness(url: string): Promise<{ code: number; graph: { ready: boolean; status: string; reason?: string; action?: string; details?: Record<string, unknown> } }> {
  const res = await fetch(`${url}/readyz`);
  const body = (await res.json()) as { components: Record<string, { ready: boolean; status: string; reason?: string; action?: string; details?: Record<string, unknown> }> };
  return { code: res.status, graph: body.components.graph! };
}
