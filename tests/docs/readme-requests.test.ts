import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { packageRoot } from '../../shared/package-root.js';
import { startDemoGateway, type DemoGateway } from '../helpers/demo.js';
import { markedBlocks, README_ORIGIN, runReadmeBlock, runReadmeCurl, shellCommands } from '../helpers/readme.js';
import { tempDirs } from '../helpers/temp.js';

// The README's "A first request by hand" curl lines, run as written (through bash, only the port
// replaced) against the real bin serving the demo home of a fresh staged checkout, as `npm start`
// does on a fresh clone: each must get a JSON-RPC result — tools/list the six public tools,
// tools/call a tool result that is not an error, initialize a session id — so a README that drops a
// required `_meta` field or header fails here. Then its "First real calls" block, run as one bash
// script (its later lines use the values its earlier ones capture): each answer must hold what the
// README says it does — the demo project's README, its tests' output from the terminal and from a
// job, execute_code's output — not merely a result.

const SIX = ['tool_search', 'tool_describe', 'tool_call', 'startup_context', 'memory_context', 'skills_list'];

const commands = markedBlocks('first-requests').flatMap(shellCommands);

const temp = tempDirs();
let gw: DemoGateway;
// One hook: node's test runner may start a file's root-level before hooks together, and the
// first-calls run below needs the gateway.
before(async () => {
  gw = await startDemoGateway(temp);
  await runFirstCalls();
});
after(async () => {
  await gw?.stop();
  temp.removeAll();
});

interface Answer {
  headers: Record<string, string>;
  message: { result?: Record<string, unknown>; error?: { code: number; message: string } };
}

/** curl's output: optional response headers (`-i`), then one JSON-RPC message as JSON or as one SSE event. */
function parseAnswer(out: string): Answer {
  const headers: Record<string, string> = {};
  let body = out;
  if (out.startsWith('HTTP/')) {
    const split = out.indexOf('\r\n\r\n');
    assert.ok(split > 0, `no end of headers in:\n${out.slice(0, 500)}`);
    for (const line of out.slice(0, split).split('\r\n').slice(1)) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    body = out.slice(split + 4);
  }
  const sse = /^data: (.*)$/m.exec(body);
  return { headers, message: JSON.parse(sse && !body.trimStart().startsWith('{') ? sse[1]! : body) as Answer['message'] };
}

test('the README has curl lines under its first-requests marker, aimed at the default port', () => {
  const curls = commands.filter((c) => c.startsWith('curl '));
  assert.ok(curls.length >= 2, `expected the tools/list and tools/call lines, found ${curls.length}`);
  assert.deepEqual(commands.filter((c) => !c.startsWith('curl ')), [], 'the checked block holds only curl lines');
  for (const c of curls) assert.ok(c.includes(`${README_ORIGIN}/mcp`), `not aimed at ${README_ORIGIN}/mcp: ${c}`);
  const methods = curls.map((c) => /"method":"([^"]+)"/.exec(c)?.[1]);
  assert.ok(methods.includes('tools/list') && methods.includes('tools/call'), `methods shown: ${methods.join(', ')}`);
});

for (const [i, command] of commands.entries()) {
  const method = /"method":"([^"]+)"/.exec(command)?.[1] ?? '(none)';
  test(`README curl line ${i + 1} (${method}) gets a result from a live gateway`, { timeout: 60_000 }, async () => {
    const stdout = await runReadmeCurl(command, gw.url);
    const { headers, message } = parseAnswer(stdout);
    assert.equal(message.error, undefined, `JSON-RPC error: ${JSON.stringify(message.error)}`);
    const result = message.result;
    assert.ok(result, `no result in ${stdout.slice(0, 500)}`);
    switch (method) {
      case 'tools/list':
        assert.deepEqual((result.tools as Array<{ name: string }>).map((t) => t.name), SIX);
        break;
      case 'tools/call': {
        assert.notEqual(result.isError, true, `tool error: ${JSON.stringify(result.structuredContent ?? result.content)}`);
        assert.ok(Array.isArray(result.content) && result.content.length > 0, 'the tool answered with content');
        break;
      }
      case 'initialize':
        assert.equal(typeof result.protocolVersion, 'string');
        assert.ok(headers['mcp-session-id'], 'initialize answers with the Mcp-Session-Id the next requests send');
        break;
      default:
        assert.fail(`no check for a README curl line with method ${method}; add one here`);
    }
  });
}

// ---- First real calls ----

const DEMO_PROJECT = join(packageRoot(), 'policy', 'demo-project');
const firstCalls = markedBlocks('first-calls');

/** One top-level command of the block: its text, and the shell variables it assigns. */
interface Step {
  command: string;
  assigns: string[];
}

const steps: Step[] = firstCalls.flatMap(shellCommands).map((command) => ({
  command,
  assigns: [...command.matchAll(/(?:^|;\s*)([A-Z_][A-Z0-9_]*)=\$\(/g)].map((m) => m[1]!),
}));

/** The tool a step calls (`"calls":[{"name":...`), or the endpoint it asks. */
function subject(step: Step): string {
  if (/^call\(\)\s*\{/.test(step.command)) return 'the call function';
  const tool = /"calls":\[\{"name":"([a-z_]+)"/.exec(step.command)?.[1];
  if (tool) return tool;
  if (step.assigns.length > 0) return `${step.assigns.join(', ')} from earlier answers`;
  return '(unknown)';
}

/** What each step printed, and the values of the variables it set, from one run of the whole block. */
let outputs: Array<{ stdout: string; vars: Record<string, string> }> = [];

async function runFirstCalls(): Promise<void> {
  // The block's own commands, unchanged, with marker lines between them: where each step starts,
  // and after it the values of the variables it assigned.
  const script = steps
    .map((s, i) => [`printf '@@step ${i}@@\n'`, s.command, `printf '\n@@vars@@\n'`, ...s.assigns.map((v) => `printf '%s=%s\n' ${v} "$${v}"`)].join('\n'))
    .join('\n');
  const stdout = await runReadmeBlock(script, gw.url);
  outputs = steps.map((_, i) => {
    const start = stdout.indexOf(`@@step ${i}@@\n`);
    const end = i + 1 < steps.length ? stdout.indexOf(`@@step ${i + 1}@@\n`) : stdout.length;
    assert.ok(start >= 0 && end > start, `step ${i + 1} did not run:\n${stdout.slice(0, 2000)}`);
    const [printed = '', vars = ''] = stdout.slice(start + `@@step ${i}@@\n`.length, end).split('\n@@vars@@\n');
    return { stdout: printed, vars: Object.fromEntries(vars.split('\n').filter(Boolean).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)])) };
  });
}

/** A step's answer: one JSON-RPC message, its tool_call result's structuredContent (which must not be an error). */
function toolResult(i: number): Record<string, unknown> {
  const { message } = parseAnswer(outputs[i]!.stdout.trim());
  assert.equal(message.error, undefined, `JSON-RPC error: ${JSON.stringify(message.error)}`);
  const result = message.result!;
  assert.notEqual(result.isError, true, `tool error: ${JSON.stringify(result.structuredContent ?? result.content)}`);
  return result.structuredContent as Record<string, unknown>;
}

/** The demo project's test run as the system python3 prints it (unittest's summary lines). */
const UNITTEST_OK = /^Ran [1-9]\d* tests? in [0-9.]+s\n\nOK\n?$/m;

/** What greet.py prints when run, computed from the shipped file. */
function greetOutput(): string {
  const run = spawnSync('python3', ['greet.py'], { cwd: DEMO_PROJECT, encoding: 'utf8', env: { PATH: '/usr/bin:/bin', PYTHONDONTWRITEBYTECODE: '1' } });
  assert.equal(run.status, 0, run.stderr);
  return run.stdout.trim();
}

const JOB_ID = /^job_[0-9a-f]{24}$/;

const checks: Record<string, (i: number) => void> = {
  'the call function': (i) => assert.equal(outputs[i]!.stdout, '', 'defining call prints nothing'),
  read_file: (i) => {
    const content = String(toolResult(i).content);
    // read_file numbers its lines (`N|text`); without the numbers it is the demo README as shipped.
    const text = content.split('\n').map((l) => l.replace(/^\d+\|/, '')).join('\n');
    assert.equal(text, readFileSync(join(DEMO_PROJECT, 'README.md'), 'utf8').trimEnd());
  },
  session_open: (i) => assert.match(outputs[i]!.vars.TOKEN ?? '', /^hmcp_[A-Za-z0-9_-]{20,}$/, 'TOKEN is the session token'),
  terminal: (i) => {
    const r = toolResult(i);
    assert.equal(r.exit_code, 0, String(r.output));
    assert.match(String(r.output), UNITTEST_OK);
  },
  execute_code: (i) => {
    const r = toolResult(i);
    assert.equal(r.status, 'success', String(r.output));
    assert.equal(String(r.output).trim(), `42 ${greetOutput()}`);
  },
  job_prepare: (i) => {
    assert.equal(outputs[i]!.stdout, '', 'the answer is kept in JOB');
    const { message } = parseAnswer(outputs[i]!.vars.JOB ?? '');
    const r = message.result?.structuredContent as Record<string, unknown> | undefined;
    assert.match(String(r?.job_id), JOB_ID, `JOB is job_prepare's answer: ${outputs[i]!.vars.JOB}`);
    assert.equal(r?.state, 'prepared');
    assert.equal(typeof r?.recovery_token, 'string');
  },
  'JOB_ID, RECOVERY from earlier answers': (i) => {
    const { JOB_ID: id = '', RECOVERY: recovery = '' } = outputs[i]!.vars;
    assert.match(id, JOB_ID);
    assert.ok(recovery.length >= 20, `RECOVERY is the recovery token: ${JSON.stringify(recovery)}`);
  },
  job_start: (i) => {
    const r = toolResult(i);
    assert.match(String(r.job_id), JOB_ID);
    assert.ok(['starting', 'running', 'succeeded'].includes(String(r.state)), `started: ${String(r.state)}`);
    assert.equal(r.workdir, gw.root);
  },
  job_status: (i) => {
    const r = toolResult(i);
    assert.equal(r.state, 'succeeded', JSON.stringify(r));
    assert.equal(r.exit_code, 0);
    assert.match(String(r.output_tail), UNITTEST_OK);
  },
};

test('the first-calls block reads a file, runs a terminal with a session token, execute_code and a job', () => {
  const subjects = steps.map(subject);
  for (const needed of ['read_file', 'session_open', 'terminal', 'execute_code', 'job_prepare', 'job_start', 'job_status']) {
    assert.ok(subjects.includes(needed), `the block calls ${needed}: ${subjects.join(', ')}`);
  }
  for (const step of steps) {
    if (step.command.includes('"name":"terminal"') || step.command.includes('"name":"job_')) {
      if (!step.command.includes('"name":"job_status"')) assert.match(step.command, /"session_token":"'"\$TOKEN"'"/, `passes the token beside calls: ${step.command}`);
    }
    if (/\bcurl\b/.test(step.command)) assert.ok(step.command.includes(README_ORIGIN), `aimed at ${README_ORIGIN}: ${step.command}`);
  }
});

for (const [i, step] of steps.entries()) {
  const what = subject(step);
  test(`README first-calls step ${i + 1} (${what}) answers what the README says`, () => {
    const check = checks[what];
    assert.ok(check, `no check for a first-calls step about ${what}; add one here: ${step.command}`);
    check(i);
  });
}
