import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { ErrorCode, GatewayError } from '../../shared/errors.js';
import type { ToolDefinition } from '../../supervisor/core/tool-types.js';
import { loadConfig } from '../../supervisor/platform/config.js';
import { HermesRelease } from '../../supervisor/platform/hermes/release.js';
import { createLogger } from '../../supervisor/platform/telemetry.js';
import { sessionSearchTools } from '../../supervisor/tools/guarded/session-search/index.js';
import { directCronjob } from '../fixtures/cron-home.js';
import { Cases } from '../tools/files/fixture.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { hermes } from '../helpers/hermes.js';
import { hermesCoerce, runHermes, type Args } from '../helpers/hermes-coerce.js';

// session_search, patch and cronjob as built (cronjob on a Hermes home of its own), and every tool
// mirroring a Hermes tool as the gateway's catalog serves it (a whole gateway fronting
// the pinned Hermes), repairs a call's arguments as Hermes' own dispatch coercion does. The unit
// comparison of supervisor/core/hermes-args.ts is hermes-args.test.ts.

const home = mkdtempSync(join(tmpdir(), 'hermes-args-gw-'));
const files = new Cases();
let gw: TestGateway;
before(async () => {
  gw = await startTestGateway({
    env: { HERMES_AGENT_PYTHON: hermes().python, CAMOFOX_URL: 'http://127.0.0.1:9', HERMES_MCP_OPTIONAL_COMPONENTS: 'browser,memory,hermes_tools,graph,lsp,jobs' },
  });
});
after(async () => {
  await gw?.close();
  files.cleanup();
  rmSync(home, { recursive: true, force: true });
});

test("session_search, patch and cronjob, as built, repair a call's strings as Hermes' dispatch does with its own schema", async () => {
  const release = new HermesRelease(hermes().version);
  const newest = release.has('process-manage-schema');
  const config = loadConfig({ PATH: process.env.PATH ?? '/usr/bin:/bin', HERMES_HOME: home, HOME: home, HERMES_MCP_ROOTS: home, HERMES_MCP_STATE_DIR: join(home, '.gateway-state') });
  const [sessionSearch] = sessionSearchTools(config, createLogger('error'), release);
  const { tool: cronjob } = await directCronjob(mkdtempSync(join(home, 'cron-')), {});
  const patch = files.make().patch;
  const cases = [
    { tool: sessionSearch!, hermesTool: 'session_search', args: { query: 'x', limit: '5', around_message_id: '12', window: ' 3 ' } },
    { tool: sessionSearch!, hermesTool: 'session_search', args: { query: '7', limit: 'many', window: '2.5' } },
    { tool: patch, hermesTool: 'patch', args: { path: 'a.txt', old_string: '1', new_string: '2', replace_all: 'TRUE' } },
    { tool: patch, hermesTool: 'patch', args: { path: 'a.txt', old_string: 'true', new_string: 'false', replace_all: 'yes' } },
    { tool: cronjob, hermesTool: newest ? 'cronjob_manage' : 'cronjob', args: { action: 'create', prompt: 'p', schedule: '1h', repeat: '3', skills: 'one', context_from: '["job1"]' } },
  ];
  const expected = hermesCoerce(home, cases.map((c) => ({ tool: c.hermesTool, args: c.args })));
  cases.forEach((c, i) => {
    assert.ok(c.tool.coerceArguments, `${c.tool.name} repairs its arguments`);
    assert.deepEqual(c.tool.coerceArguments(structuredClone(c.args)), expected[i], `${hermes().version} ${c.tool.name}: ${JSON.stringify(c.args)}`);
  });
});


/** The tools whose name and schema are a Hermes tool's (supervisor/core/hermes-args.ts header). */
const MIRRORED = new Set([
  'read_file', 'write_file', 'patch', 'search_files', 'terminal', 'process_manage', 'execute_code',
  'session_search', 'cronjob', 'delegate_task', 'skills_list', 'skill_view',
  'browser_navigate', 'browser_snapshot', 'browser_click', 'browser_type', 'browser_press', 'browser_scroll',
  'browser_back', 'browser_get_images', 'browser_console', 'browser_vision',
  'memory_profile', 'memory_search', 'memory_context', 'memory_reasoning', 'memory_conclude',
]);

function served(name: string): ToolDefinition {
  const entry = gw.gateway.catalog.get(name);
  assert.ok(entry, `the gateway serves ${name}`);
  return entry.tool;
}

test("the gateway's own tools keep strict validation; every tool mirroring Hermes' repairs its arguments", () => {
  const names = gw.gateway.catalog.names();
  for (const name of MIRRORED) assert.ok(names.includes(name), `${name} is catalogued`);
  for (const name of names) {
    // Hermes' tool server's tools (web_search, ...: source `hermes`) where this Hermes serves them here.
    const mirrored = MIRRORED.has(name) || gw.gateway.catalog.get(name)!.source === 'hermes';
    assert.equal(typeof served(name).coerceArguments === 'function', mirrored, `${name}: ${mirrored ? 'repairs as Hermes' : "the gateway's own, strict"}`);
  }
  // A gateway tool's integer sent as a string stays INVALID_ARGUMENTS.
  const jobStatus = gw.gateway.catalog.get('job_status')!;
  const call = { job_id: `job_${'0'.repeat(24)}`, recovery_token: 'r'.repeat(32) };
  assert.deepEqual(jobStatus.validate({ ...call, wait_seconds: 5 }), { ...call, wait_seconds: 5 });
  assert.throws(
    () => jobStatus.validate({ ...call, wait_seconds: '5' }),
    (e: unknown) => e instanceof GatewayError && e.code === ErrorCode.INVALID_ARGUMENTS && e.message.includes('/wait_seconds'),
  );
});

interface MirrorCase {
  name: string;
  /** Hermes' registered tool, or the gateway's schema given to Hermes' coerce_tool_args (the tool or the property is not Hermes' registry's in this pin). */
  hermesTool: string | 'gateway-schema';
  args: Args;
}

function mirrorCases(release: HermesRelease): MirrorCase[] {
  const newest = release.has('process-manage-schema');
  const oldest = !newest;
  return [
    ...(oldest
      ? [
          { name: 'write_file', hermesTool: 'write_file', args: { path: 'a.txt', content: '1', cross_profile: 'true' } },
          { name: 'write_file', hermesTool: 'write_file', args: { path: 'a.txt', content: 'true', cross_profile: ' FALSE ' } },
          { name: 'write_file', hermesTool: 'write_file', args: { path: 'a.txt', content: 'x', cross_profile: 'yes' } },
        ]
      : []),
    { name: 'write_file', hermesTool: 'write_file', args: { path: '3', content: '{"a":1}' } },
    { name: 'skills_list', hermesTool: 'skills_list', args: { category: '3' } },
    { name: 'skill_view', hermesTool: 'skill_view', args: { name: 'true', file_path: '["x"]' } },
    { name: 'execute_code', hermesTool: newest ? 'execute_code' : 'gateway-schema', args: { code: 'print(1)', reset: 'True' } },
    { name: 'execute_code', hermesTool: newest ? 'execute_code' : 'gateway-schema', args: { code: '2', reset: 'yes' } },
    { name: 'delegate_task', hermesTool: 'delegate_task', args: { tasks: '[{"goal":"a","acp_args":"[\\"--x\\"]"}]' } },
    { name: 'delegate_task', hermesTool: 'delegate_task', args: { tasks: 'one goal' } },
    { name: 'delegate_task', hermesTool: 'delegate_task', args: { tasks: ['{"goal":"a","context":"c"}', { goal: 'b' }] } },
    { name: 'delegate_task', hermesTool: oldest ? 'delegate_task' : 'gateway-schema', args: { goal: 'g', context: '5', background: 'true' } },
    { name: 'delegate_task', hermesTool: 'gateway-schema', args: { goal: 'g', max_iterations: '7', acp_args: '--stdio', background: 'no' } },
    { name: 'browser_snapshot', hermesTool: 'browser_snapshot', args: { full: 'false' } },
    { name: 'browser_console', hermesTool: 'browser_console', args: { clear: 'TRUE', expression: '1+1' } },
    { name: 'browser_vision', hermesTool: 'browser_vision', args: { question: 'what?', annotate: ' true ' } },
    { name: 'browser_vision', hermesTool: 'browser_vision', args: { question: '4', annotate: '1' } },
    { name: 'browser_type', hermesTool: 'browser_type', args: { ref: '@e1', text: '42' } },
    { name: 'browser_scroll', hermesTool: 'browser_scroll', args: { direction: 'down' } },
    { name: 'browser_navigate', hermesTool: 'browser_navigate', args: { url: 'https://example.com/?q=true' } },
    { name: 'memory_search', hermesTool: 'gateway-schema', args: { query: 'pnpm', limit: '5' } },
    { name: 'memory_search', hermesTool: 'gateway-schema', args: { query: '7', limit: '2.5' } },
    { name: 'memory_conclude', hermesTool: 'gateway-schema', args: { action: 'list', page: ' 2 ', size: '1e1' } },
    { name: 'memory_reasoning', hermesTool: 'gateway-schema', args: { query: 'true', reasoning_level: 'low' } },
    { name: 'memory_context', hermesTool: 'gateway-schema', args: { query: 'null', session: '12' } },
  ];
}

test("write_file, skills, execute_code, delegate_task, browser and memory tools, as served, repair a call's strings as Hermes' dispatch does", () => {
  const release = gw.hermes.release;
  assert.equal(release.version, hermes().version, 'the gateway fronts the pinned Hermes');
  const cases = mirrorCases(release);
  const expected = hermesCoerce(home, cases.map((c) => (c.hermesTool === 'gateway-schema' ? { schema: served(c.name).inputSchema, args: c.args } : { tool: c.hermesTool, args: c.args })));
  cases.forEach((c, i) => {
    const tool = served(c.name);
    assert.deepEqual(tool.coerceArguments!(structuredClone(c.args)), expected[i], `${hermes().version} ${c.name}: ${JSON.stringify(c.args)}`);
  });
});

test("write_file's cross_profile, which Hermes 0.22 no longer advertises, is read with the boolean rule", () => {
  const write = served('write_file');
  const advertised = Object.hasOwn(write.inputSchema.properties as Record<string, unknown>, 'cross_profile');
  const sent = [{ path: 'a', content: 'b', cross_profile: 'true' }, { path: 'a', content: 'b', cross_profile: ' False ' }];
  // Hermes: its dispatch (registered schema), then its handler's bool(args.get("cross_profile", False)).
  const script = [
    'import json, sys',
    'import model_tools',
    'out = []',
    'for args in json.load(sys.stdin):',
    '    c = model_tools.coerce_tool_args("write_file", dict(args))',
    '    out.append([c["cross_profile"], bool(c.get("cross_profile", False))])',
    'print(json.dumps(out))',
  ].join('\n');
  const hermesSaw = JSON.parse(runHermes(home, script, JSON.stringify(sent))) as [unknown, boolean][];
  const gateway = sent.map((args) => write.coerceArguments!(structuredClone(args)).cross_profile);
  assert.deepEqual(gateway, [true, false]);
  if (advertised) {
    assert.deepEqual(hermesSaw, [[true, true], [false, false]], 'Hermes 0.19 coerces it at dispatch, as the gateway does');
  } else {
    // Hermes 0.22 leaves the string to its handler, whose bool() reads "true" as true (as here) and
    // " False " as true too; the gateway reads it as false (the guard the model kept stays on).
    assert.deepEqual(hermesSaw, [['true', true], [' False ', true]]);
  }
  const validate = gw.gateway.catalog.get('write_file')!.validate;
  assert.throws(() => validate({ path: 'a', content: 'b', cross_profile: 'yes' }), (e: unknown) => e instanceof GatewayError && e.code === ErrorCode.INVALID_ARGUMENTS);
  assert.throws(() => validate({ path: 'a', content: 'b', unknown: 'true' }), (e: unknown) => e instanceof GatewayError && e.code === ErrorCode.INVALID_ARGUMENTS);
});
