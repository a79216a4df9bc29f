import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { ErrorCode, GatewayError } from '../../../shared/errors.js';
import { compileArgumentValidator } from '../../../supervisor/core/catalog/validate.js';
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
    rejects(validate, { path: 'a', limit: 2001 });
    rejects(validate, { path: 'a', offset: 0 });
    rejects(validate, { offset: 1 });
    rejects(validate, { path: 'a', extra: true });
  });

  // Hermes v0.23's negative offsets are not followed (their rules could not be read; docs/hermes-versions.md#read_file):
  // the newest gateway, and one told it fronts 0.23.5, keep 0.22.2's offset ≥ 1.
  test('read_file schema: offset ≥ 1 for 0.22.2, 0.23.5 and the newest Hermes', () => {
    for (const hermes of ['0.22.2', '0.23.5', undefined]) {
      const read = cases.make(hermes === undefined ? {} : { hermes }).read;
      const { offset } = propertiesOf(read, 'offset');
      assert.deepEqual([offset.default, offset.minimum], [1, 1], String(hermes));
      const validate = compileArgumentValidator(read);
      validate({ path: 'a', offset: 1 });
      rejects(validate, { path: 'a', offset: 0 });
      rejects(validate, { path: 'a', offset: -5 });
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
  });
});
