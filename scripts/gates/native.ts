import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { PROTOCOL_VERSION_META_KEY } from '@modelcontextprotocol/client';
import { numericDirs } from '../../shared/proc.js';
import { check, Skip, type GateContext } from './context.js';

// Gates 1 and 2: native execution (execute_code, its RPC and cancellation) and the tool set.

const NATIVE = ['read_file', 'write_file', 'patch', 'search_files', 'terminal', 'process_manage', 'execute_code'];
export const BROWSER_TOOLS = ['browser_navigate', 'browser_click', 'browser_type', 'browser_press', 'browser_snapshot', 'browser_scroll', 'browser_back', 'browser_get_images', 'browser_console', 'browser_vision'];
const FORBIDDEN = ['computer_use', 'browser_exec', 'browser_cdp'];
const HERMES_TOOLS = ['vision_analyze', 'image_generate', 'video_analyze'];

/** Host processes whose command line carries `marker` (descendants of a unit show up here too). */
function marked(marker: string): number[] {
  return numericDirs('/proc').filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker);
    } catch {
      return false;
    }
  });
}

async function until(cond: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
  return true;
}

export async function executeCodeGate(ctx: GateContext): Promise<string> {
  const client = await ctx.client('modern');
  const name = `hermes-mcp-gate-${randomBytes(4).toString('hex')}.txt`;
  const first = `import os, json
from hermes_tools import read_file, search_files, terminal
p = os.path.abspath(${JSON.stringify(name)})
open(p, 'w').write('gate-marker-line\\n')
try:
    r = read_file(p)
    s = search_files('gate-marker-line', path='.', file_glob=${JSON.stringify(name)})
    t = terminal('export HERMES_GATE_STATE=leaked; cd /; echo terminal-ok')
finally:
    os.remove(p)
print(json.dumps({'read': 'gate-marker-line' in str(r.get('content')), 'search': s.get('total_count', 0) >= 1, 'terminal': 'terminal-ok' in str(t.get('output')), 'cwd': os.getcwd()}))`;
  const a = await ctx.must(client, 'execute_code', { code: first });
  const out = String(a.data.output ?? '');
  const facts = JSON.parse(out.trim().split('\n').pop() ?? '{}') as { read?: boolean; search?: boolean; terminal?: boolean; cwd?: string };
  check(facts.read && facts.search && facts.terminal, `hermes_tools RPC: read_file ${facts.read}, search_files ${facts.search}, terminal ${facts.terminal} (output: ${out.slice(0, 300)})`);
  const second = `from hermes_tools import terminal
print(terminal('echo "state=${'$'}{HERMES_GATE_STATE:-none} cwd=$(pwd)"')['output'])`;
  const b = String((await ctx.must(client, 'execute_code', { code: second })).data.output ?? '');
  check(b.includes('state=none') && b.includes(`cwd=${facts.cwd}`), `a second sessionless call saw the first one's state: ${b.trim()}`);
  return `RPC read/search/terminal ok, no shared state; ${await cancellation(ctx)}`;
}

/** A call whose script leaves two descendants (one in its own session) is abandoned: both must die. */
async function cancellation(ctx: GateContext): Promise<string> {
  const marker = `hermes-mcp-gate-${randomBytes(6).toString('hex')}`;
  const code = `import subprocess, time
subprocess.Popen(['sh', '-c', 'sleep 300; : ${marker}'])
subprocess.Popen(['setsid', 'sh', '-c', 'sleep 300; : ${marker}'])
time.sleep(300)`;
  const controller = new AbortController();
  const body = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'tool_call', arguments: { calls: [{ name: 'execute_code', arguments: { code } }] }, _meta: { [PROTOCOL_VERSION_META_KEY]: '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } } };
  const done = fetch(ctx.options.mcpUrl, {
    method: 'POST',
    signal: controller.signal,
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'tool_call', ...ctx.headers },
    body: JSON.stringify(body),
  }).then(async (r) => `answered ${r.status}: ${(await r.text()).slice(0, 200)}`, () => 'aborted');
  try {
    const started = await until(() => marked(marker).length >= 2, 15_000);
    if (!started) {
      controller.abort();
      throw new Error(`the cancellation script's descendants never appeared (${await Promise.race([done, new Promise((r) => setTimeout(() => r('still running'), 100))])})`);
    }
    controller.abort();
    const gone = await until(() => marked(marker).length === 0, 10_000);
    check(gone, `descendants still alive 10 s after the client went away: ${marked(marker).join(', ')}`);
    return 'cancellation killed both descendants';
  } finally {
    for (const pid of marked(marker)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
}

export async function toolSetGate(ctx: GateContext): Promise<string> {
  const client = await ctx.client('modern');
  const wanted = [...NATIVE, 'skill_view', ...BROWSER_TOOLS];
  const found: string[] = [];
  const missing: string[] = [];
  for (let i = 0; i < wanted.length; i += 10) {
    const { data } = await ctx.call(client, 'tool_describe', { names: wanted.slice(i, i + 10) });
    found.push(...Object.keys((data.tools as object | undefined) ?? {}));
    missing.push(...((data.not_found as string[] | undefined) ?? []));
  }
  check(missing.length === 0, `missing from the catalog: ${missing.join(', ')}`);
  const browser = (await ctx.call(client, 'tool_search', { queries: ['browser'], limit: 25 })).data.results as Array<{ matches: string[] }>;
  const browserNames = new Set(browser.flatMap((r) => r.matches).filter((n) => n.startsWith('browser_')));
  check(browserNames.size === 10 && BROWSER_TOOLS.every((n) => browserNames.has(n)), `browser tools are not exactly the 10: ${[...browserNames].join(', ')}`);
  const forbidden = await ctx.call(client, 'tool_describe', { names: FORBIDDEN });
  check((forbidden.data.not_found as string[]).length === FORBIDDEN.length, `forbidden tools described: ${Object.keys(forbidden.data.tools as object).join(', ')}`);
  for (const name of FORBIDDEN) {
    const a = await ctx.viaBridge(client, name, {});
    check(a.isError && a.data.error === 'UNKNOWN_TOOL', `${name} through tool_call answered ${a.data.error ?? 'a result'}`);
  }
  const token = await ctx.sessionToken(client);
  const t = await ctx.must(client, 'terminal', { command: 'echo gate-terminal' }, token);
  check(String(t.data.output).includes('gate-terminal'), `terminal output: ${String(t.data.output)}`);
  const p = await ctx.must(client, 'process_manage', { action: 'list' }, token);
  check(Array.isArray(p.data.processes), 'process_manage list gave no processes array');
  const skills = await ctx.call(client, 'skills_list', {});
  check(!skills.isError, `skills_list answered ${String(skills.data.error)}`);
  await ctx.must(client, 'session_close', {}, token);
  return `${found.length} native and browser tools present (exactly 10 browser_*), ${FORBIDDEN.join('/')} absent and refused; terminal, process_manage, skills_list answered`;
}

export async function hermesToolsGate(ctx: GateContext): Promise<string> {
  ctx.requireReady('hermes_tools', "Hermes' tool server");
  const client = await ctx.client('modern');
  const { data } = await ctx.call(client, 'tool_describe', { names: HERMES_TOOLS });
  const notFound = (data.not_found as string[] | undefined) ?? [];
  if (notFound.length === 0) return `${HERMES_TOOLS.join(', ')} catalogued from Hermes' tool server (described, not called: each is a paid provider call)`;
  // A tool this Hermes' tool server does not list (its provider not configured here, or not served
  // by this Hermes version at all: 0.19.0's has no video_analyze) is /readyz's `missing`: the gate
  // cannot exercise it, so it is skipped with that reason. One it lists but the catalog lacks fails.
  const tools = ctx.component('hermes_tools');
  const missing = (tools?.details?.missing as string[] | undefined) ?? [];
  const unexplained = notFound.filter((n) => !missing.includes(n));
  check(unexplained.length === 0, `Hermes' tool server is ready but these are not catalogued: ${unexplained.join(', ')}${tools?.details?.unusable ? ` (unusable: ${JSON.stringify(tools.details.unusable)})` : ''}`);
  const catalogued = HERMES_TOOLS.filter((n) => !notFound.includes(n));
  throw new Skip(`Hermes' tool server here does not offer ${notFound.join(', ')} (/readyz hermes_tools: ${tools?.status ?? 'unknown'}${tools?.reason ? `: ${tools.reason}` : ''}); ${catalogued.length > 0 ? `${catalogued.join(', ')} catalogued` : 'none of them catalogued'}`);
}
