import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { ErrorCode, GatewayError } from '../../shared/errors.js';
import { defaultLimits } from '../../shared/limits.js';
import { compileArgumentValidator } from '../../supervisor/core/catalog/validate.js';
import { coerceToolArgs, hermesArgumentRepair } from '../../supervisor/core/hermes-args.js';
import { HermesRelease } from '../../supervisor/platform/hermes/release.js';
import { processManageSchema } from '../../supervisor/tools/processes/process-manage.js';
import { terminalSchema } from '../../supervisor/tools/processes/terminal.js';
import { loadConfig } from '../../supervisor/platform/config.js';
import { createLogger } from '../../supervisor/platform/telemetry.js';
import { sessionSearchTools } from '../../supervisor/tools/guarded/session-search.js';
import { directCronjob } from '../fixtures/cron-home.js';
import { Cases } from '../tools/files/fixture.js';
import { hermes, hermesEnv } from '../helpers/hermes.js';

// The gateway's copy of Hermes' dispatch coercion (supervisor/core/hermes-args.ts coerceToolArgs)
// against Hermes' own: model_tools.py / tools/arg_coercion.py `coerce_tool_args`, run in the pinned
// Hermes venv. The fidelity drivers call Hermes' tool functions directly (below dispatch), so this
// is where a string "3" for an integer is compared with what Hermes makes of it.

const home = mkdtempSync(join(tmpdir(), 'hermes-args-'));
const files = new Cases();
after(() => {
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
  const stdout = execFileSync(hermes().python, ['-c', script], {
    input: JSON.stringify(cases),
    cwd: home,
    env: hermesEnv(home),
    encoding: 'utf8',
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const lines = stdout.trim().split('\n');
  return JSON.parse(lines[lines.length - 1]!) as Args[];
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
