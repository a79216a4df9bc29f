import { serve, type ServerType } from '@hono/node-server';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { ErrorCode, GatewayError } from '../../../shared/errors.js';
import { createApp } from '../../../supervisor/http/app.js';
import { loadConfig } from '../../../supervisor/platform/config.js';
import { Gateway } from '../../../supervisor/core/gateway.js';
import { createMcpEndpoint, type McpEndpoint } from '../../../supervisor/http/mcp/endpoint.js';
import { memoryAdapter } from '../../../supervisor/tools/memory/index.js';
import { skillsAdapter } from '../../../supervisor/tools/skills/index.js';
import { startupAdapter } from '../../../supervisor/tools/startup/index.js';
import { ExecuteCodePool, executeCodeTool } from '../../../supervisor/tools/execute-code/index.js';
import { scriptToolDispatch } from '../../../supervisor/tools/execute-code/index.js';
import { createWorkerRuntime } from '../../../supervisor/platform/spawning/worker-runtime.js';
import { createLogger } from '../../../supervisor/platform/telemetry.js';
import type { ToolDefinition } from '../../../supervisor/core/tool-types.js';
import { connect, makeHermesHome, optionalComponents, viaBridge } from '../../helpers/gateway.js';
import { waitFor } from '../../helpers/wait.js';
import { logSink } from '../../helpers/log-sink.js';

// execute_code's hermes_tools file calls are nested calls of the Dispatcher: an error reaches the
// script as Hermes' {"error": "<mapped message>"} with the stable code beside it as `code`, and an internal
// error as the generic message tool_call gives, its details logged once in the gateway log and
// never sent to the script. The real gateway always brings the real file tools, whose failures are
// all mapped GatewayErrors; to reach the internal-error path this gateway is composed like
// startGateway's (real HTTP, real execute_code units and RPC socket) from a native source whose
// read_file breaks and whose write_file refuses.

const INTERNAL_DETAIL = 'fixture read_file broke: /var/lib/very-internal-detail';
const REFUSAL = 'write_file refuses y.txt in this test';

const brokenReadFile: ToolDefinition = {
  name: 'read_file',
  description: 'Fixture: fails with an unexpected (non-gateway) error.',
  inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: false },
  async handler() {
    throw new Error(INTERNAL_DETAIL);
  },
};

const refusingWriteFile: ToolDefinition = {
  name: 'write_file',
  description: 'Fixture: refuses with a gateway error.',
  inputSchema: { type: 'object', properties: { path: { type: 'string' }, content: { type: 'string' } }, required: ['path', 'content'] },
  annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: false },
  async handler() {
    throw new GatewayError(ErrorCode.PATH_OUTSIDE_ROOTS, REFUSAL);
  },
};

describe('hermes_tools errors reach the script mapped, and internal ones are logged once', () => {
  const home = makeHermesHome();
  const { stream: logStream, lines } = logSink();
  let gateway: Gateway;
  let endpoint: McpEndpoint;
  let server: ServerType;
  let mcpUrl: string;

  before(async () => {
    const config = loadConfig({ HERMES_HOME: home, HOME: home, HERMES_MCP_PORT: '0', HERMES_MCP_ROOTS: home, HERMES_MCP_TERMINAL_CWD: home, HERMES_MCP_OPTIONAL_COMPONENTS: optionalComponents() });
    const log = createLogger('info', logStream);
    const runtime = createWorkerRuntime(config, process.env);
    const fileTools = [brokenReadFile, refusingWriteFile];
    const pool = new ExecuteCodePool(runtime, scriptToolDispatch(fileTools.map((t) => t.name)));
    gateway = await Gateway.create({
      config,
      log,
      adapters: [
        startupAdapter(config),
        skillsAdapter(config),
        { name: 'native', source: { name: 'native', tools: () => [...fileTools, executeCodeTool(pool, runtime, () => home)] }, close: () => pool.close() },
        memoryAdapter(config, log),
      ],
    });
    endpoint = createMcpEndpoint(gateway, () => {});
    const { app } = createApp(gateway, endpoint);
    server = await new Promise<ServerType>((resolve) => {
      const s = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(s));
    });
    mcpUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  });

  after(async () => {
    await endpoint.close();
    await gateway.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(home, { recursive: true, force: true });
  });

  test('an internal error is the generic message for the script, logged once with the tool name; a GatewayError keeps its code and message', async () => {
    const client = await connect(mcpUrl, 'modern');
    try {
      const code = [
        'from hermes_tools import read_file, write_file',
        'import json',
        'print(json.dumps(read_file("x.txt")))',
        'print(json.dumps(write_file("y.txt", "z")))',
      ].join('\n');
      const r = await viaBridge(client, 'execute_code', { code });
      const out = String(r.data.output);
      assert.equal(r.data.status, 'success', out);
      const [read, write] = out.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
      assert.deepEqual(read, { error: 'read_file failed inside the gateway; see the gateway log for details', code: 'INTERNAL_ERROR' });
      assert.ok(!out.includes('very-internal-detail'), 'the internal detail never reaches the script');
      assert.deepEqual(write, { error: REFUSAL, code: 'PATH_OUTSIDE_ROOTS' });
      const events = () => lines.map((l) => JSON.parse(l) as Record<string, unknown>);
      const logged = events().filter((e) => e.event === 'tool_internal_error');
      assert.equal(logged.length, 1, JSON.stringify(logged));
      assert.equal(logged[0]!.tool, 'read_file');
      assert.equal((logged[0]!.err as { message?: unknown }).message, INTERNAL_DETAIL, JSON.stringify(logged[0]));
      // The nested calls leave the execute_code request's own log record alone.
      const request = await waitFor(() => events().find((e) => e.event === 'request' && e.target === 'execute_code'), 5000, 'the request log event');
      assert.equal(request.category, 'ok');
    } finally {
      await client.close();
    }
  });
});
