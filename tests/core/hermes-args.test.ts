import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { ErrorCode, GatewayError } from '../../shared/errors.js';
import { defaultLimits } from '../../shared/limits.js';
import { compileArgumentValidator } from '../../supervisor/core/catalog/catalog.js';
import { coerceNumber, coerceToolArgs, coerceValue, hermesArgumentRepair, normalizeJsonStrings, registryTypesOf, schemaAllowsNull, withHermesArgumentRepair } from '../../supervisor/core/hermes-args.js';
import { HermesRelease } from '../../supervisor/platform/hermes/release.js';
import { processManageSchema } from '../../supervisor/tools/processes/process-manage/index.js';
import { terminalSchema } from '../../supervisor/tools/processes/terminal/index.js';
import { toolServerTool } from '../../supervisor/tools/hermes-tools/tools.js';
import { hermes } from '../helpers/hermes.js';
import { hermesCoerce, runHermes, type Args } from '../helpers/hermes-coerce.js';

// The gateway's copy of Hermes' dispatch coercion (supervisor/core/hermes-args.ts coerceToolArgs)
// against Hermes' own: model_tools.py / tools/arg_coercion.py `coerce_tool_args`, run in the pinned
// Hermes venv. The fidelity drivers call Hermes' tool functions directly (below dispatch), so this
// is where a string "3" for an integer is compared with what Hermes makes of it. The tools as built
// (session_search, patch, cronjob) and as the gateway's catalog serves them: hermes-args-gateway.test.ts.

const home = mkdtempSync(join(tmpdir(), 'hermes-args-'));
after(() => {
  rmSync(home, { recursive: true, force: true });
});

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
  const expected = hermesCoerce(home, RULE_ARGS.map((args) => ({ schema: RULES_SCHEMA, args })));
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
  const expected = hermesCoerce(home, cases.map((c) => ({ tool: c.hermesTool, args: c.args })));
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

test("the tools of Hermes' tool server repair a call's strings as Hermes' dispatch does, before the gateway validates them", () => {
  // Their schemas are Hermes' registered ones, as its tool server lists them.
  const names = ['web_search', 'web_extract', 'vision_analyze'];
  const script = [
    'import json',
    'import model_tools',
    'from tools.registry import registry',
    `print(json.dumps({n: registry.get_schema(n) for n in ${JSON.stringify(names)}}))`,
  ].join('\n');
  const schemas = JSON.parse(runHermes(home, script, '')) as Record<string, { description: string; parameters: Record<string, unknown> }>;
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
  const expected = hermesCoerce(home, cases);
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
  const hermesSaw = hermesCoerce(home, sent.map((args) => ({ tool: 'web_search', args })));
  sent.forEach((args, i) => assert.deepEqual(listed.coerceArguments!(structuredClone(args)), hermesSaw[i], JSON.stringify(args)));
  const validateListed = compileArgumentValidator(listed);
  assert.deepEqual(validateListed({ query: 'q', limit: '5' }), { query: 'q', limit: 5 });
  assert.throws(() => validateListed({ query: 'q', limit: 'null' }), (e: unknown) => e instanceof GatewayError && e.code === ErrorCode.INVALID_ARGUMENTS);
});

test("registryTypesOf reads a FastMCP optional (anyOf T | null) as type T, and leaves every other union alone", () => {
  const schema = {
    type: 'object',
    properties: {
      limit: { anyOf: [{ type: 'integer' }, { type: 'null' }], default: null, title: 'Limit' },
      both: { anyOf: [{ type: 'integer' }, { type: 'string' }] },
      typed: { type: 'string', anyOf: [{ type: 'string' }, { type: 'null' }] },
      many: { anyOf: [{ type: ['integer', 'string'] }, { type: 'null' }] },
      q: { type: 'string' },
    },
    required: ['q'],
  };
  const seen = registryTypesOf(schema);
  assert.deepEqual(seen, {
    type: 'object',
    properties: {
      limit: { default: null, title: 'Limit', type: 'integer' },
      both: schema.properties.both,
      typed: schema.properties.typed,
      many: schema.properties.many,
      q: { type: 'string' },
    },
    required: ['q'],
  });
  assert.deepEqual(coerceToolArgs({ limit: '5' }, seen), { limit: 5 });
  assert.deepEqual(coerceToolArgs({ limit: 'null' }, seen), { limit: 'null' }, 'the registry type allows no null');
  const noProperties = { type: 'object' };
  assert.equal(registryTypesOf(noProperties), noProperties);
});

test("withHermesArgumentRepair coerces a property only ^name$ patternProperties declares, then runs the tool's own repair", () => {
  const order: string[] = [];
  const tool = withHermesArgumentRepair({
    name: 't',
    inputSchema: { type: 'object', properties: { n: { type: 'integer' } }, patternProperties: { '^cross_profile$': { type: 'boolean' }, '^x_.*$': { type: 'integer' } } },
    coerceArguments: (args: Record<string, unknown>) => {
      order.push(`own saw n=${JSON.stringify(args.n)}`);
      return { ...args, own: true };
    },
  });
  assert.equal(tool.name, 't');
  assert.deepEqual(tool.coerceArguments({ n: '3', cross_profile: ' False ', x_a: '4' }), { n: 3, cross_profile: false, x_a: '4', own: true });
  assert.deepEqual(order, ['own saw n=3'], 'the dispatch coercion first');
  assert.deepEqual(tool.coerceArguments({ cross_profile: 'yes' }), { cross_profile: 'yes', own: true }, 'left for the schema to refuse');
  const plain = hermesArgumentRepair({ type: 'object', properties: { b: { type: 'boolean' } } });
  assert.deepEqual(plain({ b: 'TRUE', c: 'true' }), { b: true, c: 'true' });
});

// Hermes' coercion of one argument value (model_tools.py `_coerce_number`, `_coerce_value`,
// `_schema_allows_null`, `_normalize_json_strings_for_schema`), value by value.

test('coerceNumber: what float() reads and is finite; a fraction stays a string for an integer', () => {
  for (const [text, n] of [['3', 3], [' 3 ', 3], ['3.0', 3], ['1e2', 100], ['1_0', 10], ['-0', 0], ['+.5e1', 5]] as const) assert.equal(coerceNumber(text, true), n, text);
  assert.ok(Object.is(coerceNumber('-0', true), 0), '-0 reads as 0');
  assert.equal(coerceNumber('2.5', false), 2.5);
  for (const text of ['2.5', 'abc', '', 'inf', 'nan', '1e999', '0x10', '1__0', '_1']) assert.equal(coerceNumber(text, true), text, text);
});

test('coerceValue: booleans, JSON containers, null where allowed, unions in order', () => {
  assert.equal(coerceValue(' TRUE ', 'boolean', undefined), true);
  assert.equal(coerceValue('False', 'boolean', undefined), false);
  assert.equal(coerceValue('yes', 'boolean', undefined), 'yes');
  assert.deepEqual(coerceValue('[1,"a"]', 'array', undefined), [1, 'a']);
  assert.equal(coerceValue('{"a":1}', 'array', undefined), '{"a":1}', 'an object for an array stays a string');
  assert.deepEqual(coerceValue('{"a":1}', 'object', undefined), { a: 1 });
  assert.equal(coerceValue('[1', 'array', undefined), '[1');
  assert.equal(coerceValue('NULL', 'integer', { type: ['integer', 'null'] }), null);
  assert.equal(coerceValue('null', 'integer', { type: 'integer' }), 'null');
  assert.equal(coerceValue('null', 'null', undefined), null);
  assert.equal(coerceValue('7', ['boolean', 'integer'], undefined), 7);
  assert.equal(coerceValue('true', ['integer', 'boolean'], undefined), true);
  assert.equal(coerceValue('x', ['integer', 'boolean'], undefined), 'x');
  assert.equal(coerceValue('3', 'string', undefined), '3');
});

test('schemaAllowsNull: a null type, a type list with null, nullable, or a null branch of anyOf/oneOf', () => {
  assert.equal(schemaAllowsNull(undefined), false);
  assert.equal(schemaAllowsNull({ type: 'null' }), true);
  assert.equal(schemaAllowsNull({ type: ['string', 'null'] }), true);
  assert.equal(schemaAllowsNull({ type: 'string', nullable: true }), true);
  assert.equal(schemaAllowsNull({ anyOf: [{ type: 'string' }, { type: 'null' }] }), true);
  assert.equal(schemaAllowsNull({ oneOf: [{ type: 'null' }] }), true);
  assert.equal(schemaAllowsNull({ allOf: [{ type: 'null' }] }), false);
  assert.equal(schemaAllowsNull({ type: 'string' }), false);
});

test('normalizeJsonStrings: JSON-encoded containers inside containers where the schema expects them; the same value when nothing changes', () => {
  const schema = { type: 'array', items: { type: 'object', properties: { tags: { type: 'array' }, name: { type: 'string' } } } };
  const value = ['{"tags":"[\\"a\\"]","name":"[x]"}'];
  assert.deepEqual(normalizeJsonStrings(value, schema), [{ tags: ['a'], name: '[x]' }]);
  const untouched = [{ tags: ['a'], name: 'n' }];
  assert.equal(normalizeJsonStrings(untouched, schema), untouched);
  assert.equal(normalizeJsonStrings('[1]', { type: 'object' }), '[1]', 'an array where only an object fits');
  assert.deepEqual(normalizeJsonStrings(' [1] ', { anyOf: [{ type: 'array' }] }), [1]);
  assert.equal(normalizeJsonStrings('[1', { type: 'array' }), '[1');
  assert.equal(normalizeJsonStrings('x', 'not a schema'), 'x');
});
