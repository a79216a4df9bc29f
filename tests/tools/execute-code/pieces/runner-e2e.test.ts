// End to end with a real interpreter: RPC server (fake dispatch) + /usr/bin/python3 runner.py +
// hermes_tools, as the execute_code worker will wire them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { scrubChildEnv } from '../../../../supervisor/platform/spawning/env-scrub.js';
import { startRpcServer, type RpcServerOptions } from '../../../../supervisor/tools/execute-code/rpc/index.js';

// This file runs as dist/tests/tools/execute-code/pieces/runner-e2e.test.js; the .py files are not
// compiled, so they are read from the source tree at the repository root.
const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../../../..');
const RUNNER_PY = join(REPO_ROOT, 'workers/execute/runner.py');
const PYTHON = '/usr/bin/python3';

function tempDir(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'hx-rpc-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

interface RunnerProcess {
  child: ChildProcessWithoutNullStreams;
  /** Resolves when the process has exited and its pipes are drained. */
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
  /** Write the script and close stdin. */
  send(code: string): void;
}

function startRunner(env: Record<string, string>, cwd: string, timeoutMs = 30_000): RunnerProcess {
  const child = spawn(PYTHON, [RUNNER_PY], {
    cwd,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', PYTHONDONTWRITEBYTECODE: '1', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>(
    (resolveDone, reject) => {
      child.once('error', reject);
      child.once('close', (code, signal) => {
        clearTimeout(timer);
        resolveDone({ code, signal, stdout, stderr });
      });
    },
  );
  return {
    child,
    done,
    send(code: string) {
      child.stdin.end(code, 'utf8');
    },
  };
}

const TOKEN = 'e2e-token-' + 'a1b2c3d4e5f6a7b8c9d0';
const ALLOWED = ['web_search', 'web_extract', 'read_file', 'write_file', 'search_files', 'patch', 'terminal'];

interface Call {
  tool: string;
  args: Record<string, unknown>;
}

async function setup(t: { after(fn: () => unknown): void }, overrides: Partial<RpcServerOptions> = {}) {
  assert.ok(existsSync(PYTHON), `${PYTHON} is required for these tests`);
  assert.ok(existsSync(RUNNER_PY), `runner not found at ${RUNNER_PY}`);
  const dir = tempDir(t);
  const calls: Call[] = [];
  const server = await startRpcServer({
    dir,
    token: TOKEN,
    allowed: ALLOWED,
    maxCalls: 50,
    dispatch: async (tool, args) => {
      calls.push({ tool, args });
      if (tool === 'terminal') return { output: `ran: ${String(args.command)}`, exit_code: 0, error: null };
      if (tool === 'read_file') return { content: `contents of ${String(args.path)}`, total_lines: 1 };
      return { ok: true };
    },
    ...overrides,
  });
  t.after(() => server.close());
  const env = {
    ...scrubChildEnv(process.env),
    HERMES_RPC_SOCKET: server.path,
    HERMES_RPC_TOKEN: TOKEN,
    PYTHONDONTWRITEBYTECODE: '1',
  };
  return { dir, server, calls, env };
}

test('a script calls terminal() and read_file() over RPC and prints their results', async (t) => {
  const { dir, server, calls, env } = await setup(t);
  const run = startRunner(env, dir);
  run.send(
    [
      'from hermes_tools import terminal, read_file',
      'r = terminal("echo hi")',
      'print(r["output"], r["exit_code"])',
      'f = read_file("/x")',
      'print(f["content"])',
    ].join('\n'),
  );
  const { code, stdout, stderr } = await run.done;
  assert.equal(code, 0, stderr);
  assert.equal(stdout, 'ran: echo hi 0\ncontents of /x\n');
  assert.deepEqual(calls, [
    { tool: 'terminal', args: { command: 'echo hi' } }, // timeout/workdir None → omitted
    // The stub's default limit without the gateway's setting is the newest Hermes' (2000; 500 for 0.19).
    { tool: 'read_file', args: { path: '/x', offset: 1, limit: 2000 } },
  ]);
  assert.equal(server.callsMade(), 2);
});

test('every stub sends Hermes\' defaults and omits optional arguments left at None', async (t) => {
  const { dir, calls, env } = await setup(t);
  const run = startRunner(env, dir);
  run.send(
    [
      'from hermes_tools import web_search, web_extract, write_file, search_files, patch',
      'web_search("q")',
      'web_extract(["https://e.x"])',
      'write_file("/p", "c")',
      'search_files("pat")',
      'patch("/p", "a", "b")',
    ].join('\n'),
  );
  const { code, stderr } = await run.done;
  assert.equal(code, 0, stderr);
  assert.deepEqual(calls, [
    { tool: 'web_search', args: { query: 'q', limit: 5 } },
    { tool: 'web_extract', args: { urls: ['https://e.x'] } },
    { tool: 'write_file', args: { path: '/p', content: 'c', cross_profile: false } },
    {
      tool: 'search_files',
      args: { pattern: 'pat', target: 'content', path: '.', limit: 50, offset: 0, output_mode: 'content', context: 0 },
    },
    {
      tool: 'patch',
      args: { path: '/p', old_string: 'a', new_string: 'b', replace_all: false, mode: 'replace', cross_profile: false },
    },
  ]);
});

test('a JSON-string tool result is double-decoded into a dict', async (t) => {
  const { dir, env } = await setup(t, { dispatch: async () => '{"output": "x", "exit_code": 3}' });
  const run = startRunner(env, dir);
  run.send('from hermes_tools import terminal\nr = terminal("x")\nprint(type(r).__name__, r["exit_code"])');
  const { code, stdout, stderr } = await run.done;
  assert.equal(code, 0, stderr);
  assert.equal(stdout, 'dict 3\n');
});

test('a wrong HERMES_RPC_TOKEN gets "Unauthorized RPC request" and nothing is dispatched', async (t) => {
  const { dir, calls, env } = await setup(t);
  const run = startRunner({ ...env, HERMES_RPC_TOKEN: 'not-the-token' }, dir);
  run.send('from hermes_tools import terminal\nprint(terminal("id"))');
  const { code, stdout, stderr } = await run.done;
  assert.equal(code, 0, stderr);
  assert.equal(stdout, "{'error': 'Unauthorized RPC request'}\n");
  assert.equal(calls.length, 0);
});

test('a raw socket request for a tool outside the allowlist is refused', async (t) => {
  const { dir, calls, env } = await setup(t);
  const run = startRunner(env, dir);
  run.send(
    [
      'import json, os, socket',
      's = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)',
      's.connect(os.environ["HERMES_RPC_SOCKET"])',
      'req = {"tool": "delegate_task", "args": {"goal": "x"}, "token": os.environ["HERMES_RPC_TOKEN"]}',
      's.sendall((json.dumps(req) + "\\n").encode())',
      'buf = b""',
      'while not buf.endswith(b"\\n"):',
      '    buf += s.recv(65536)',
      'print(json.loads(buf)["error"])',
    ].join('\n'),
  );
  const { code, stdout, stderr } = await run.done;
  assert.equal(code, 0, stderr);
  assert.equal(
    stdout,
    "Tool 'delegate_task' is not available in execute_code. " +
      'Available: patch, read_file, search_files, terminal, web_extract, web_search, write_file\n',
  );
  assert.equal(calls.length, 0);
});

test('the 51st tool call is refused with Hermes\' exact message', async (t) => {
  const { dir, server, calls, env } = await setup(t);
  const run = startRunner(env, dir);
  run.send(
    [
      'from hermes_tools import terminal',
      'results = [terminal("echo %d" % i) for i in range(51)]',
      'print(sum(1 for r in results if "output" in r))',
      'print(results[-1]["error"])',
    ].join('\n'),
  );
  const { code, stdout, stderr } = await run.done;
  assert.equal(code, 0, stderr);
  assert.equal(stdout, '50\nTool call limit reached (50). No more tool calls allowed in this execution.\n');
  assert.equal(calls.length, 50);
  assert.equal(server.callsMade(), 50);
});

test('calls from several threads are serialised over the one connection', async (t) => {
  let active = 0;
  let maxActive = 0;
  const { dir, env } = await setup(t, {
    dispatch: async (_tool, args) => {
      active++;
      maxActive = Math.max(maxActive, active);
      await new Promise((r) => setTimeout(r, 5));
      active--;
      return { output: String(args.command), exit_code: 0 };
    },
  });
  const run = startRunner(env, dir);
  run.send(
    [
      'from concurrent.futures import ThreadPoolExecutor',
      'from hermes_tools import terminal',
      'with ThreadPoolExecutor(8) as ex:',
      '    outs = list(ex.map(lambda i: terminal(str(i))["output"], range(24)))',
      'print(outs == [str(i) for i in range(24)])',
    ].join('\n'),
  );
  const { code, stdout, stderr } = await run.done;
  assert.equal(code, 0, stderr);
  assert.equal(stdout, 'True\n');
  assert.equal(maxActive, 1);
});

test('a runner started before the code exists (pre-warmed) waits, then runs it', async (t) => {
  const { dir, calls, env } = await setup(t);
  const run = startRunner(env, dir);
  await new Promise((r) => setTimeout(r, 400));
  assert.equal(run.child.exitCode, null, 'runner must block on stdin until the code arrives');
  assert.equal(run.child.signalCode, null);
  run.send('from hermes_tools import terminal\nprint(terminal("late")["output"])');
  const { code, stdout, stderr } = await run.done;
  assert.equal(code, 0, stderr);
  assert.equal(stdout, 'ran: late\n');
  assert.deepEqual(calls, [{ tool: 'terminal', args: { command: 'late' } }]);
});

test('a SyntaxError in the code exits 1 with the error on stderr', async (t) => {
  const { dir, env } = await setup(t);
  const run = startRunner(env, dir);
  run.send('print("before")\nx = (\n');
  const { code, stdout, stderr } = await run.done;
  assert.equal(code, 1);
  assert.equal(stdout, '');
  assert.match(stderr, /File "<execute_code>", line \d+/);
  assert.match(stderr, /SyntaxError: /);
  assert.doesNotMatch(stderr, /runner\.py/);
});

test('an uncaught exception prints a traceback of the user\'s code only and exits 1', async (t) => {
  const { dir, env } = await setup(t);
  const run = startRunner(env, dir);
  run.send('print("partial")\ndef f():\n    raise ValueError("boom")\nf()\n');
  const { code, stdout, stderr } = await run.done;
  assert.equal(code, 1);
  assert.equal(stdout, 'partial\n');
  assert.match(stderr, /^Traceback \(most recent call last\):\n {2}File "<execute_code>", line 4, in <module>\n {4}f\(\)\n/);
  assert.match(stderr, /raise ValueError\("boom"\)\nValueError: boom\n$/);
  assert.doesNotMatch(stderr, /runner\.py/);
});

test('SystemExit is honoured: exit status and message as in a normal script', async (t) => {
  const { dir, env } = await setup(t);
  const a = startRunner(env, dir);
  a.send('import sys\nprint("out")\nsys.exit(3)');
  const ra = await a.done;
  assert.deepEqual([ra.code, ra.stdout, ra.stderr], [3, 'out\n', '']);
  const b = startRunner(env, dir);
  b.send('raise SystemExit("fatal: bad input")');
  const rb = await b.done;
  assert.deepEqual([rb.code, rb.stderr], [1, 'fatal: bad input\n']);
});

test('the script\'s globals and __main__ hold none of the runner\'s internals', async (t) => {
  const { dir, env } = await setup(t);
  const run = startRunner(env, dir);
  run.send(
    [
      'print(sorted(globals()))',
      'import sys, __main__',
      'print(__name__, __main__ is sys.modules["__main__"], sorted(k for k in vars(__main__) if not k.startswith("__")))',
      'print(sys.argv)',
    ].join('\n'),
  );
  const { code, stdout, stderr } = await run.done;
  assert.equal(code, 0, stderr);
  assert.equal(
    stdout,
    "['__builtins__', '__doc__', '__loader__', '__name__', '__package__', '__spec__']\n" +
      "__main__ True ['sys']\n" +
      "['<execute_code>']\n",
  );
});

test('stdin is /dev/null once the code has been read', async (t) => {
  const { dir, env } = await setup(t);
  const run = startRunner(env, dir);
  run.send('import os, sys\nprint(repr(sys.stdin.read()), os.path.samefile("/proc/self/fd/0", os.devnull))');
  const { code, stdout, stderr } = await run.done;
  assert.equal(code, 0, stderr);
  assert.equal(stdout, "'' True\n");
});

test('the script runs in the given cwd and imports hermes_tools from the runner\'s directory', async (t) => {
  const { dir, env } = await setup(t);
  const run = startRunner(env, dir);
  run.send('import os, hermes_tools\nprint(os.getcwd())\nprint(hermes_tools.__file__)');
  const { code, stdout, stderr } = await run.done;
  assert.equal(code, 0, stderr);
  const [cwd, module] = stdout.trimEnd().split('\n');
  assert.equal(cwd, dir);
  assert.equal(module, RUNNER_PY.replace(/runner\.py$/, 'hermes_tools.py'));
});
