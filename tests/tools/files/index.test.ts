import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { ErrorCode, GatewayError } from '../../../shared/errors.js';
import { compileArgumentValidator } from '../../../supervisor/core/catalog/catalog.js';
import type { ToolDefinition } from '../../../supervisor/core/tool-types.js';
import { Cases } from './fixture.js';

const cases = new Cases();
after(() => cases.cleanup());

function tools() {
  const c = cases.make();
  return { read: c.read, write: c.write, patch: c.patch, search: c.search };
}

/** The keywords of a property schema these tests read. */
interface PropertySchema {
  default?: unknown;
  minimum?: unknown;
  maximum?: unknown;
  enum?: unknown;
}

/** The named properties of a tool's input schema, each checked to be present and a schema object. */
function propertiesOf<K extends string>(tool: ToolDefinition, ...names: K[]): Record<K, PropertySchema> {
  const props = tool.inputSchema.properties;
  assert.ok(props !== null && typeof props === 'object', `${tool.name} has properties`);
  for (const name of names) {
    const prop = (props as Record<string, unknown>)[name];
    assert.ok(prop !== null && typeof prop === 'object', `${tool.name} has a ${name} property`);
  }
  return props as Record<K, PropertySchema>;
}

function rejects(validate: (a: unknown) => unknown, args: unknown): void {
  assert.throws(() => validate(args), (e: unknown) => e instanceof GatewayError && e.code === ErrorCode.INVALID_ARGUMENTS);
}

describe('file tool definitions', () => {
  test('names, order, annotations, owner and native flags', () => {
    const t = tools();
    assert.deepEqual([t.read.name, t.write.name, t.patch.name, t.search.name], ['read_file', 'write_file', 'patch', 'search_files']);
    for (const tool of [t.read, t.search]) {
      assert.deepEqual(
        [tool.annotations.readOnlyHint, tool.annotations.destructiveHint, tool.annotations.openWorldHint],
        [true, false, false],
        tool.name,
      );
      assert.notEqual(tool.holdsLease, true, tool.name);
    }
    for (const tool of [t.write, t.patch]) {
      assert.deepEqual(
        [tool.annotations.readOnlyHint, tool.annotations.destructiveHint, tool.annotations.openWorldHint],
        [false, true, false],
        tool.name,
      );
      assert.equal(tool.holdsLease, true, tool.name);
    }
    for (const tool of Object.values(t)) {
      assert.equal(tool.requiresOwner, false, tool.name);
      assert.equal(tool.inputSchema.additionalProperties, false, tool.name);
    }
  });

  // Hermes' READ_FILE_SCHEMA: limit has a maximum and no minimum (a limit below 1 reads one line).
  test('read_file schema: offset ≥ 1 (default 1), limit ≤ 2000 (default 500 as Hermes 0.19)', () => {
    const read = cases.make({ hermes: '0.19.0' }).read;
    const props = propertiesOf(read, 'offset', 'limit');
    assert.deepEqual([props.offset.default, props.offset.minimum], [1, 1]);
    assert.deepEqual([props.limit.default, props.limit.minimum, props.limit.maximum], [500, undefined, 2000]);
    const validate = compileArgumentValidator(read);
    validate({ path: 'a', offset: 1, limit: 2000 });
    validate({ path: 'a', limit: 0 });
    rejects(validate, { offset: 1 });
    rejects(validate, { path: 'a', extra: true });
  });

  // Hermes repairs what a model sends before its function reads it (model_tools.py coerce_tool_args,
  // then normalize_read_pagination's int() and clamps); the published schema stays Hermes' own.
  test('read_file arguments: numeric strings, fractions and out-of-range values repaired as Hermes does', () => {
    for (const hermes of ['0.19.0', '0.22.2', undefined]) {
      const validate = compileArgumentValidator(cases.make(hermes === undefined ? {} : { hermes }).read);
      const as = (args: Record<string, unknown>) => validate(args);
      assert.deepEqual(as({ path: 'a', offset: '3', limit: '2' }), { path: 'a', offset: 3, limit: 2 }, String(hermes));
      assert.deepEqual(as({ path: 'a', offset: ' 4 ', limit: '1e2' }), { path: 'a', offset: 4, limit: 100 });
      assert.deepEqual(as({ path: 'a', offset: 0, limit: 2001 }), { path: 'a', offset: 1, limit: 2000 });
      assert.deepEqual(as({ path: 'a', offset: -5, limit: -3 }), { path: 'a', offset: 1, limit: 1 });
      assert.deepEqual(as({ path: 'a', offset: 2.9, limit: 2.7 }), { path: 'a', offset: 2, limit: 2 });
      assert.deepEqual(as({ path: 'a', offset: '-4', limit: '0' }), { path: 'a', offset: 1, limit: 1 });
      assert.deepEqual(as({ path: 'a', offset: null, limit: null }), { path: 'a' });
      // The repair works on a copy: the caller's arguments are left as sent.
      const sent = { path: 'a', offset: '3' };
      as(sent);
      assert.deepEqual(sent, { path: 'a', offset: '3' });
      // What Hermes cannot read as a number it replaces by its default; the gateway refuses it.
      for (const bad of ['abc', '2.5', '', true, false, [], {}, [3], '0x10', 'inf']) {
        rejects(validate, { path: 'a', offset: bad });
        rejects(validate, { path: 'a', limit: bad });
      }
    }
  });

  // Hermes v0.23's negative offsets are not followed (their rules could not be read; docs/hermes-versions.md#read_file):
  // the schema keeps 0.22.2's offset ≥ 1 for every version; a gateway told it fronts 0.23.5 refuses an
  // offset below 1 (raising it to 1 would show the first lines where that Hermes shows the last),
  // while 0.22.2 and a Hermes of unknown version raise it to 1 as normalize_read_pagination does.
  test('read_file schema: offset ≥ 1 for 0.22.2, 0.23.5 and the newest Hermes', () => {
    for (const hermes of ['0.22.2', '0.23.5', undefined]) {
      const read = cases.make(hermes === undefined ? {} : { hermes }).read;
      const { offset } = propertiesOf(read, 'offset');
      assert.deepEqual([offset.default, offset.minimum], [1, 1], String(hermes));
      const validate = compileArgumentValidator(read);
      validate({ path: 'a', offset: 1 });
      if (hermes === '0.23.5') {
        rejects(validate, { path: 'a', offset: 0 });
        rejects(validate, { path: 'a', offset: -5 });
        rejects(validate, { path: 'a', offset: '-5' });
        assert.deepEqual(validate({ path: 'a', offset: '3', limit: 2.5 }), { path: 'a', offset: 3, limit: 2 });
      } else {
        assert.deepEqual(validate({ path: 'a', offset: 0 }), { path: 'a', offset: 1 }, String(hermes));
        assert.deepEqual(validate({ path: 'a', offset: -5 }), { path: 'a', offset: 1 }, String(hermes));
      }
    }
  });

  test('read_file schema: limit default 2000 as newer Hermes', () => {
    const props = propertiesOf(tools().read, 'limit');
    assert.deepEqual([props.limit.default, props.limit.maximum], [2000, 2000]);
  });

  test('write_file schema requires path and content', () => {
    const validate = compileArgumentValidator(tools().write);
    validate({ path: 'a', content: '', cross_profile: false });
    rejects(validate, { path: 'a' });
    rejects(validate, { path: 'a', content: 1 });
  });

  test('patch schema: mode is optional (default replace) and is replace|patch', () => {
    const { patch } = tools();
    assert.equal(patch.inputSchema.required, undefined);
    assert.equal(propertiesOf(patch, 'mode').mode.default, 'replace');
    const validate = compileArgumentValidator(patch);
    validate({ mode: 'replace' });
    validate({ mode: 'patch', patch: '*** Begin Patch' });
    validate({ path: 'a', old_string: 'x', new_string: 'y' });
    rejects(validate, { mode: 'sed' });
  });

  test('search_files schema: target content|files, output modes, pagination defaults', () => {
    const { search } = tools();
    const props = propertiesOf(search, 'target', 'output_mode', 'limit', 'offset', 'context', 'path');
    assert.deepEqual(props.target.enum, ['content', 'files']);
    assert.deepEqual(props.output_mode.enum, ['content', 'files_only', 'count']);
    assert.deepEqual([props.limit.default, props.offset.default, props.context.default, props.path.default], [50, 0, 0, '.']);
    const validate = compileArgumentValidator(search);
    validate({ pattern: 'x', target: 'files', file_glob: '*.ts', limit: 1, offset: 0, output_mode: 'count', context: 2 });
    rejects(validate, { pattern: 'x', target: 'grep' });
    // Out-of-range pagination is clamped by the handler, as Hermes' normalize_search_pagination does.
    validate({ pattern: 'x', limit: 0, offset: -3, context: -1 });
    rejects(validate, { target: 'content' });
    // Numeric strings and fractions repaired as Hermes' dispatch and normalize_search_pagination do.
    assert.deepEqual(validate({ pattern: 'x', limit: '2', offset: '-3', context: '1' }), { pattern: 'x', limit: 2, offset: 0, context: 1 });
    assert.deepEqual(validate({ pattern: 'x', limit: 0, offset: 1.8 }), { pattern: 'x', limit: 1, offset: 1 });
    assert.deepEqual(validate({ pattern: 'x', limit: null, offset: null }), { pattern: 'x' });
    for (const bad of ['abc', '2.5', true, [], {}]) {
      rejects(validate, { pattern: 'x', limit: bad });
      rejects(validate, { pattern: 'x', offset: bad });
      rejects(validate, { pattern: 'x', context: bad });
    }
    // context is read by Hermes' search as given: a fraction or null is not Hermes' repair to make.
    rejects(validate, { pattern: 'x', context: 1.5 });
    rejects(validate, { pattern: 'x', context: null });
  });
});
