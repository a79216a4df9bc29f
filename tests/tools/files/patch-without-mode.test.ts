import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { call, connect, startTestGateway, viaBridge, type TestGateway } from '../../helpers/gateway.js';

// patch says mode defaults to "replace"; a call without mode must pass the schema tool_call
// validates against and edit the file as a replace would.

let gw: TestGateway;
before(async () => {
  gw = await startTestGateway();
});
after(async () => gw.close());

test('patch without mode validates and works as mode=replace', async () => {
  const client = await connect(gw.mcpUrl, 'modern');
  try {
    const file = join(gw.home, 'notes.txt');
    writeFileSync(file, 'alpha beta\n');
    const r = await viaBridge(client, 'patch', { path: file, old_string: 'beta', new_string: 'gamma' });
    assert.equal(r.isError, false, JSON.stringify(r.data));
    assert.equal(r.data.success, true);
    assert.equal(readFileSync(file, 'utf8'), 'alpha gamma\n');
    const { data } = await call(client, 'tool_describe', { names: ['patch'] });
    const schema = (data.tools as Record<string, { parameters: { required?: string[] } }>).patch!.parameters;
    assert.ok(!(schema.required ?? []).includes('mode'), 'mode is not required');
    const missing = await viaBridge(client, 'patch', { path: file });
    assert.equal(missing.data.error, 'INVALID_ARGUMENTS', 'replace still needs old_string and new_string');
    assert.match(String(missing.data.message), /old_string/);
  } finally {
    await client.close();
  }
});
