import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, test } from 'node:test';
import { packageRoot } from '../../../shared/package-root.js';
import { ancestorMatching, ESCAPEE_COUNT, ESCAPE_SCRIPT, killSurvivors, namespaceInitAbove, newMarker, waitForNoSurvivors, waitForSurvivors } from '../../helpers/escapees.js';
import { abortableToolCall, connect, startTestGateway, viaBridge, type TestGateway } from '../../helpers/gateway.js';

const py = (lines: string[]) => lines.join('\n');
const UNIT_INIT = /workers\/execute\/unit\.py/;
const escapeeScript = (marker: string, after: string) =>
  py(['import subprocess', `subprocess.Popen(["bash", ${JSON.stringify(ESCAPE_SCRIPT)}, ${JSON.stringify(marker)}, "600"])`, after]);

describe('execute_code through tool_call', () => {
  let gw: TestGateway;
  const markers: string[] = [];
  before(async () => {
    process.env.HMCP_TEST_SECRET_TOKEN = 'must-not-reach-scripts';
    process.env.HMCP_TEST_PLAIN = 'also-dropped';
    gw = await startTestGateway({ limits: { executeCodeDeadlineSeconds: 4 } });
  });
  after(async () => {
    delete process.env.HMCP_TEST_SECRET_TOKEN;
    delete process.env.HMCP_TEST_PLAIN;
    await gw.close();
    for (const m of markers) killSurvivors(m);
  });

  test('runs a script with Hermes’ result shape; sessionless calls need no token', async () => {
    const client = await connect(gw.mcpUrl, 'modern');
    const r = await viaBridge(client, 'execute_code', { code: 'print(1)', reset: true });
    assert.equal(r.isError, false);
    assert.equal(r.data.status, 'success');
    assert.equal(r.data.output, '1\n');
    assert.equal(r.data.tool_calls_made, 0);
    assert.equal(typeof r.data.duration_seconds, 'number');
    await client.close();
  });

  test('interpreter state never persists between calls', async () => {
    const client = await connect(gw.mcpUrl, 'legacy');
    await viaBridge(client, 'execute_code', { code: 'x = 41' });
    const r = await viaBridge(client, 'execute_code', { code: 'print("x" in globals())' });
    assert.equal(r.data.output, 'False\n');
    await client.close();
  });

  test('a failing script reports status error with stderr', async () => {
    const client = await connect(gw.mcpUrl, 'modern');
    const r = await viaBridge(client, 'execute_code', { code: 'print("before")\nraise ValueError("boom")' });
    assert.equal(r.data.status, 'error');
    assert.match(String(r.data.output), /before\n\n--- stderr ---\n.*ValueError: boom/s);
    assert.match(String(r.data.error), /ValueError: boom/);
    await client.close();
  });

  test("its output is redacted once, as code (Hermes' code_file=True): an assignment stays, a prefixed key is masked", async () => {
    const client = await connect(gw.mcpUrl, 'modern');
    // The key is assembled inside the script, so only its output holds it whole.
    const code = py(['key = "ghp_" + "ab1CD2ef3GH4ij5KL6mn7OP8qr9ST0uv6789"', 'print(\'DATABASE_PASSWORD = "hunter2hunter2hunter2"\')', 'print("token", key)']);
    const r = await viaBridge(client, 'execute_code', { code });
    assert.equal(r.data.status, 'success', String(r.data.output));
    // The default mode, run once more on top, would have masked the assignment too.
    assert.equal(r.data.output, 'DATABASE_PASSWORD = "hunter2hunter2hunter2"\ntoken ghp_ab...6789\n');
    await client.close();
  });

  test('the child environment is scrubbed: secret-looking and unknown variables are invisible', async () => {
    const client = await connect(gw.mcpUrl, 'modern');
    const r = await viaBridge(client, 'execute_code', { code: 'import os\nprint(sorted(os.environ))' });
    const out = String(r.data.output);
    assert.ok(!out.includes('HMCP_TEST_SECRET_TOKEN'));
    assert.ok(!out.includes('HMCP_TEST_PLAIN'));
    assert.ok(out.includes("'PATH'"));
    assert.ok(!out.includes('NODE_EXTRA_CA_CERTS'));
    await client.close();
  });

  test('hermes_tools: granted tools work over RPC, others are refused, web is not configured', async () => {
    const client = await connect(gw.mcpUrl, 'modern');
    const file = join(gw.home, 'rpc-file.txt');
    const code = py([
      'from hermes_tools import terminal, write_file, read_file, web_search',
      'import hermes_tools, json',
      `print(write_file(${JSON.stringify(file)}, "via rpc\\n")["bytes_written"])`,
      `print(read_file(${JSON.stringify(file)})["content"])`,
      'print(terminal("echo term")["output"].strip())',
      'print(json.dumps(web_search("x")))',
      'print(json.dumps(hermes_tools._call("vision_analyze", {"image_url": "x"})))',
    ]);
    const r = await viaBridge(client, 'execute_code', { code });
    const out = String(r.data.output);
    assert.equal(r.data.status, 'success', out);
    assert.match(out, /^8\n1\|via rpc\nterm\n/);
    assert.match(out, /web provider not configured/);
    assert.match(out, /Tool 'vision_analyze' is not available in execute_code/);
    await client.close();
  });

  test('a wrong RPC token is refused', async () => {
    const client = await connect(gw.mcpUrl, 'modern');
    const code = py(['import os, json', 'import socket', 'sock = socket.socket(socket.AF_UNIX)', 'sock.connect(os.environ["HERMES_RPC_SOCKET"])', 'sock.sendall(json.dumps({"tool": "terminal", "args": {"command": "echo no"}, "token": "wrong"}).encode() + b"\\n")', 'print(sock.makefile().readline().strip())']);
    const r = await viaBridge(client, 'execute_code', { code });
    assert.match(String(r.data.output), /Unauthorized RPC request/);
    await client.close();
  });

  test('the 51st tool call is refused', async () => {
    const client = await connect(gw.mcpUrl, 'modern');
    const code = py(['from hermes_tools import read_file', 'import json', 'last = None', 'for i in range(51):', `    last = read_file(${JSON.stringify(join(gw.home, 'SOUL.md'))})`, 'print(json.dumps(last))']);
    const r = await viaBridge(client, 'execute_code', { code });
    assert.match(String(r.data.output), /Tool call limit reached \(50\)/);
    assert.equal(r.data.tool_calls_made, 50);
    await client.close();
  });

  test('oversized code is refused before anything runs', async () => {
    const client = await connect(gw.mcpUrl, 'modern');
    const r = await viaBridge(client, 'execute_code', { code: '#' + 'x'.repeat(64 * 1024) });
    assert.equal(r.data.error, 'CODE_TOO_LARGE');
    await client.close();
  });

  test('on the deadline the script and every escapee are killed (status timeout)', async () => {
    const client = await connect(gw.mcpUrl, 'modern');
    const marker = newMarker();
    markers.push(marker);
    const r = await viaBridge(client, 'execute_code', { code: escapeeScript(marker, 'import time\ntime.sleep(60)') });
    assert.equal(r.data.status, 'timeout');
    assert.match(String(r.data.output), /timed out after 4s/);
    assert.deepEqual(await waitForNoSurvivors(marker), []);
    await client.close();
  });

  test('escapees left by a script that finished are killed with it', async () => {
    const client = await connect(gw.mcpUrl, 'modern');
    const marker = newMarker();
    markers.push(marker);
    const r = await viaBridge(client, 'execute_code', { code: escapeeScript(marker, 'import time\ntime.sleep(0.6)\nprint("done")') });
    assert.equal(r.data.status, 'success');
    assert.deepEqual(await waitForNoSurvivors(marker), []);
    await client.close();
  });

  test('SIGKILL of the execute worker mid-script kills every escapee and reports the failure', async () => {
    const client = await connect(gw.mcpUrl, 'modern');
    const marker = newMarker();
    markers.push(marker);
    const pending = viaBridge(client, 'execute_code', { code: escapeeScript(marker, 'import time\ntime.sleep(60)') });
    const escapees = await waitForSurvivors(marker, ESCAPEE_COUNT);
    assert.ok(escapees.length >= ESCAPEE_COUNT);
    // The unit's init: PID 1 of the namespace the escapee is in (spawned, or forked by the unit
    // zygote); without namespaces, the outermost unit.py process above it (the script's own
    // process, forked from it, carries the same command line).
    let worker = namespaceInitAbove(escapees[0]!);
    if (worker === undefined) {
      worker = ancestorMatching(escapees[0]!, UNIT_INIT);
      for (let up = worker; up; up = ancestorMatching(up, UNIT_INIT)) worker = up;
    }
    assert.ok(worker, 'the unit process holding the script was found');
    process.kill(worker, 'SIGKILL');
    const r = await pending;
    assert.equal(r.data.status, 'error');
    assert.match(String(r.data.error), /worker failed/);
    assert.deepEqual(await waitForNoSurvivors(marker), []);
    await client.close();
  });

  test('a client disconnect mid-call kills the script and its escapees', async () => {
    const marker = newMarker();
    markers.push(marker);
    const call = abortableToolCall(gw.mcpUrl, 'execute_code', { code: escapeeScript(marker, 'import time\ntime.sleep(60)') });
    assert.ok((await waitForSurvivors(marker, ESCAPEE_COUNT)).length >= ESCAPEE_COUNT);
    call.abort();
    assert.equal(await call.done, 'aborted');
    assert.deepEqual(await waitForNoSurvivors(marker), []);
  });

  test('the deadline includes queue wait: a third concurrent call times out at the same total', async () => {
    const client = await connect(gw.mcpUrl, 'modern');
    const log = join(gw.home, 'started.log');
    const code = `import time\nopen(${JSON.stringify(log)}, "a").write(f"{time.time()}\\n")\ntime.sleep(30)`;
    const started = performance.now();
    const results = await Promise.all([0, 1, 2].map(() => viaBridge(client, 'execute_code', { code })));
    const elapsed = (performance.now() - started) / 1000;
    assert.deepEqual(results.map((r) => r.data.status), ['timeout', 'timeout', 'timeout']);
    const starts = readFileSync(log, 'utf8').trim().split('\n').map(Number);
    // Two ran at once; the third could only start once a slot freed, at the others' deadline.
    assert.ok(starts.length === 2 || starts[2]! - starts[0]! > 3.5, `the third waited in the queue (starts ${starts.join(', ')})`);
    assert.ok(elapsed < 4 + 2.5, `all three ended near the 4 s deadline (took ${elapsed}s)`);
    await client.close();
  });

  test('too many queued calls get an explicit BUSY, never an unbounded queue', async () => {
    const busyGw = await startTestGateway({ limits: { executeCodeDeadlineSeconds: 3, executeCodeMaxQueued: 1 } });
    try {
      const client = await connect(busyGw.mcpUrl, 'modern');
      const calls = [0, 1, 2, 3].map(() => viaBridge(client, 'execute_code', { code: 'import time\ntime.sleep(30)' }));
      const results = await Promise.all(calls);
      assert.equal(results.filter((r) => r.data.error === 'BUSY').length, 1);
      await client.close();
    } finally {
      await busyGw.close();
    }
  });
});

test('SIGKILL of the gateway process itself leaves no escapee behind', async () => {
  const marker = newMarker();
  const home = mkdtempSync(join(tmpdir(), 'hmcp-kill-'));
  writeFileSync(join(home, 'SOUL.md'), '# Soul\n');
  const gateway = spawn(join(packageRoot(), 'dist', 'bin', 'gateway.js'), [], {
    env: { ...process.env, HERMES_HOME: home, HERMES_MCP_PORT: '0', HERMES_MCP_ROOTS: home },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  try {
    const port = await new Promise<number>((resolve) => {
      createInterface({ input: gateway.stderr! }).on('line', (line) => {
        try {
          const e = JSON.parse(line) as { event?: string; port?: number };
          if (e.event === 'listening' && e.port) resolve(e.port);
        } catch {
          // not JSON
        }
      });
    });
    const client = await connect(`http://127.0.0.1:${port}/mcp`, 'modern');
    void viaBridge(client, 'execute_code', { code: escapeeScript(marker, 'import time\ntime.sleep(60)') }).catch(() => {});
    assert.ok((await waitForSurvivors(marker, ESCAPEE_COUNT)).length >= ESCAPEE_COUNT, 'escapees started');
    gateway.kill('SIGKILL');
    assert.deepEqual(await waitForNoSurvivors(marker), []);
    await client.close().catch(() => {});
  } finally {
    if (gateway.exitCode === null) gateway.kill('SIGKILL');
    killSurvivors(marker);
    rmSync(home, { recursive: true, force: true });
  }
});
