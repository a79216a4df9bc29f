import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { ErrorCode, GatewayError } from '../../shared/errors.js';
import { defaultLimits } from '../../shared/limits.js';
import { compileArgumentValidator } from '../../supervisor/core/catalog/catalog.js';
import { coerceToolArgs, hermesArgumentRepair } from '../../supervisor/core/hermes-args.js';
import { HermesRelease } from '../../supervisor/platform/hermes/release.js';
import { processManageSchema } from '../../supervisor/tools/processes/process-manage/index.js';
import { terminalSchema } from '../../supervisor/tools/processes/terminal/index.js';
import { loadConfig } from '../../supervisor/platform/config.js';
import { createLogger } from '../../supervisor/platform/telemetry.js';
import { sessionSearchTools } from '../../supervisor/tools/guarded/session-search/index.js';
import { toolServerTool } from '../../supervisor/tools/hermes-tools/tools.js';
import type { ToolDefinition } from '../../supervisor/core/tool-types.js';
import { directCronjob } from '../fixtures/cron-home.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { Cases } from '../tools/files/fixture.js';
import { hermes, hermesEnv } from '../helpers/hermes.js';

// The gateway's copy of Hermes' dispatch coercion (supervisor/core/hermes-args.ts coerceToolArgs)
// against Hermes' own: model_tools.py / tools/arg_coercion.py `coerce_tool_args`, run in the pinned
// Hermes venv. The fidelity drivers call Hermes' tool functions directly (below dispatch), so this
// is where a string "3" for an integer is compared with what Hermes makes of it.

const home = mkdtempSync(join(tmpdir(), 'hermes-args-'));
const files = new Cases();
// The tools as the gateway serves them (its catalog), fronting the pinned Hermes.
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

type Args = Record<string, unknown>;
interface HermesCase {
  /** A Hermes tool name: its registered schema is used. */
  tool?: string;
  /** Or a schema given to Hermes' coerce_tool_args in place of the registry's. */
  schema?: Record<string, unknown>;
  args: Args;
}

/** Hermes' coerce_tool_args on each case, in one interpreter of the pinned venv. */
function hermesCoerce(cases: HermesCase[]): Args[] {
  const script = [
    'import json, sys',
    'import model_tools',
    'from tools.registry import registry',
    'coerce = model_tools.coerce_tool_args',
    'real = registry.get_schema',
    'out = []',
    'for c in json.load(sys.stdin):',
    '    if "schema" in c:',
    '        registry.get_schema = lambda name, s=c["schema"]: {"name": name, "parameters": s}',
    '    else:',
    '        registry.get_schema = real',
    '        assert real(c["tool"]), "Hermes registers no tool " + c["tool"]',
    '    out.append(coerce(c.get("tool", "gateway_schema"), dict(c["args"])))',
    'print(json.dumps(out))',
  ].join('\n');
  return JSON.parse(runHermes(script, JSON.stringify(cases))) as Args[];
}

/** A script in the pinned venv's interpreter; its last line of output. */
function runHermes(script: string, input: string): string {
  const stdout = execFileSync(hermes().python, ['-c', script], {
    input,
    cwd: home,
    env: hermesEnv(home),
    encoding: 'utf8',
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const lines = stdout.trim().split('\n');
  return lines[lines.length - 1]!;
}

const RULES_SCHEMA = {
  type: 'object',
  properties: {
    i: { type: 'integer' },
    n: { type: 'number' },
    b: { type: 'boolean' },
    a: { type: 'array', items: { type: 'string' } },
    ao: { type: 'array', items: { type: 'object', properties: { x: { type: 'array', items: { type: 'integer' } } } } },
    o: { type: 'object', properties: { tags: { type: 'array', items: { type: 'string' } } } },
    ni: { type: ['integer', 'null'] },
    u: { type: ['integer', 'boolean', 'string'] },
    any: { anyOf: [{ type: 'boolean' }, { type: 'null' }] },
    s: { type: 'string' },
  },
};

const RULE_ARGS: Args[] = [
  { i: '3', n: '2.5', b: 'true', s: '7' },
  { i: ' 3 ', n: ' -4 ', b: ' FALSE ', s: 'true' },
  { i: '3.0', n: '1e2', b: 'yes' },
  { i: '2.5', n: 'abc', b: '1' },
  { i: '1_000', n: '.5', b: 'False' },
  { i: 'inf', n: 'nan', b: '' },
  { i: '-0', n: '-0.0' },
  { i: '1e3', n: '5.' },
  { i: 'abc', n: '' },
  { i: 2.5, n: true, b: 1 },
  { a: 'x' },
  { a: '["x","y"]' },
  { a: '[broken' },
  { a: 3 },
  { a: null },
  { a: '{"k":1}' },
  { ao: '[{"x":"[1,2]"}]' },
  { ao: ['{"x":[1]}'] },
  { o: '{"tags":"[\\"t\\"]"}' },
  { o: '[1]' },
  { o: { tags: '["a"]' } },
  { ni: 'null', u: '4' },
  { ni: 'NULL', u: 'true' },
  { ni: '4', u: 'word' },
  { any: 'null' },
  { any: 'true' },
  { unknown: '3' },
];

test("coerceToolArgs makes of strings what Hermes' coerce_tool_args makes of them, rule by rule", () => {
  const expected = hermesCoerce(RULE_ARGS.map((args) => ({ schema: RULES_SCHEMA, args })));
  RULE_ARGS.forEach((args, i) => {
    assert.deepEqual(coerceToolArgs(structuredClone(args), RULES_SCHEMA), expected[i], `${hermes().version}: ${JSON.stringify(args)}`);
  });
});

/** Each mirrored tool's gateway schema against Hermes' registered one, on a call with strings. */
function toolCases(release: HermesRelease): { gateway: Record<string, unknown>; hermesTool: string; args: Args }[] {
  const newest = release.has('process-manage-schema');
  return [
    { gateway: terminalSchema(release, 180), hermesTool: 'terminal', args: { command: 'ls', timeout: '60', background: 'false', pty: 'False' } },
    { gateway: terminalSchema(release, 180), hermesTool: 'terminal', args: { command: 'ls', timeout: '6.5', background: 'no' } },
    { gateway: processManageSchema(release, defaultLimits()), hermesTool: newest ? 'process_manage' : 'process', args: { action: 'log', session_id: 'proc_1', offset: '0', limit: '20', timeout: '5' } },
    { gateway: processManageSchema(release, defaultLimits()), hermesTool: newest ? 'process_manage' : 'process', args: { action: 'log', session_id: 'proc_1', offset: 'last', limit: '2.5' } },
  ];
}

test("terminal and process_manage coerce a call's strings as Hermes' dispatch does with its own schema", () => {
  const release = new HermesRelease(hermes().version);
  const cases = toolCases(release);
  const expected = hermesCoerce(cases.map((c) => ({ tool: c.hermesTool, args: c.args })));
  cases.forEach((c, i) => {
    assert.deepEqual(coerceToolArgs(structuredClone(c.args), c.gateway), expected[i], `${hermes().version} ${c.hermesTool}: ${JSON.stringify(c.args)}`);
  });
});

test('a repaired call passes the schema; what Hermes leaves a string stays INVALID_ARGUMENTS', () => {
  const release = new HermesRelease(hermes().version);
  const inputSchema = terminalSchema(release, 180);
  const validate = compileArgumentValidator({ name: 'terminal', inputSchema, coerceArguments: hermesArgumentRepair(inputSchema) });
  const sent = { command: 'ls', timeout: '60', background: 'false' };
  assert.deepEqual(validate(sent), { command: 'ls', timeout: 60, background: false });
  assert.deepEqual(sent, { command: 'ls', timeout: '60', background: 'false' }, "the caller's object is left as sent");
  for (const bad of [{ command: 'ls', timeout: '6.5' }, { command: 'ls', background: 'yes' }]) {
    assert.throws(() => validate(bad), (e: unknown) => e instanceof GatewayError && e.code === ErrorCode.INVALID_ARGUMENTS, JSON.stringify(bad));
  }
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
  const expected = hermesCoerce(cases.map((c) => ({ tool: c.hermesTool, args: c.args })));
  cases.forEach((c, i) => {
    assert.ok(c.tool.coerceArguments, `${c.tool.name} repairs its arguments`);
    assert.deepEqual(c.tool.coerceArguments(structuredClone(c.args)), expected[i], `${hermes().version} ${c.tool.name}: ${JSON.stringify(c.args)}`);
  });
});


// --- Every other tool mirroring a Hermes tool, as the gateway's catalog serves it -------------

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
  const expected = hermesCoerce(cases.map((c) => (c.hermesTool === 'gateway-schema' ? { schema: served(c.name).inputSchema, args: c.args } : { tool: c.hermesTool, args: c.args })));
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
  const hermesSaw = JSON.parse(runHermes(script, JSON.stringify(sent))) as [unknown, boolean][];
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

test("the tools of Hermes' tool server repair a call's strings as Hermes' dispatch does, before the gateway validates them", () => {
  // Their schemas are Hermes' registered ones, as its tool server lists them.
  const names = ['web_search', 'web_extract', 'vision_analyze'];
  const script = [
    'import json',
    'import model_tools',
    'from tools.registry import registry',
    `print(json.dumps({n: registry.get_schema(n) for n in ${JSON.stringify(names)}}))`,
  ].join('\n');
  const schemas = JSON.parse(runHermes(script, '')) as Record<string, { description: string; parameters: Record<string, unknown> }>;
  const unreachable = () => Promise.reject(new Error('no tool server in this test: only the arguments are repaired'));
  const tools = Object.fromEntries(
    names.map((name) => {
      const tool = toolServerTool({ name, description: schemas[name]!.description, inputSchema: schemas[name]!.parameters }, unreachable);
      assert.ok(!('unusable' in tool), name);
      return [name, tool];
    }),
  );
  const cases = [
    { tool: 'web_search', args: { query: 'q', limit: '5' } },
    { tool: 'web_search', args: { query: '5', limit: 'five' } },
    { tool: 'web_extract', args: { urls: 'https://a.example/' } },
    { tool: 'web_extract', args: { urls: '["https://a.example/","https://b.example/"]' } },
    { tool: 'vision_analyze', args: { image_url: '/tmp/a.png', question: 'true' } },
    // Hermes 0.22's vision_analyze takes a region (an array); 0.19's has none (the schema refuses it).
    ...(Object.hasOwn(schemas.vision_analyze!.parameters.properties as Record<string, unknown>, 'region') ? [{ tool: 'vision_analyze', args: { image_url: '/tmp/a.png', question: 'q', region: '[0,0,10,10]' } }] : []),
  ];
  const expected = hermesCoerce(cases);
  cases.forEach((c, i) => {
    const tool = tools[c.tool]!;
    assert.deepEqual(tool.coerceArguments!(structuredClone(c.args)), expected[i], `${hermes().version} ${c.tool}: ${JSON.stringify(c.args)}`);
  });
  const validate = compileArgumentValidator(tools.web_search!);
  assert.deepEqual(validate({ query: 'q', limit: '5' }), { query: 'q', limit: 5 });
  // As Hermes' tool server lists web_search (FastMCP's schema of its Python signature: an optional
  // integer is a union with null): the call is repaired against the registry's type all the same.
  const listed = toolServerTool(
    {
      name: 'web_search',
      description: schemas.web_search!.description,
      inputSchema: { type: 'object', properties: { query: { title: 'Query', type: 'string' }, limit: { anyOf: [{ type: 'integer' }, { type: 'null' }], default: null, title: 'Limit' } }, required: ['query'], title: 'web_searchArguments' },
    },
    unreachable,
  );
  assert.ok(!('unusable' in listed));
  const sent = [{ query: 'q', limit: '5' }, { query: 'q', limit: ' 7 ' }, { query: 'q', limit: 'null' }, { query: 'q', limit: '2.5' }];
  const hermesSaw = hermesCoerce(sent.map((args) => ({ tool: 'web_search', args })));
  sent.forEach((args, i) => assert.deepEqual(listed.coerceArguments!(structuredClone(args)), hermesSaw[i], JSON.stringify(args)));
  const validateListed = compileArgumentValidator(listed);
  assert.deepEqual(validateListed({ query: 'q', limit: '5' }), { query: 'q', limit: 5 });
  assert.throws(() => validateListed({ query: 'q', limit: 'null' }), (e: unknown) => e instanceof GatewayError && e.code === ErrorCode.INVALID_ARGUMENTS);
});
