import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { call, connect, startTestGateway, type TestGateway } from '../../helpers/gateway.js';

// process_manage.session_id is Hermes' name for a background process id; next to
// tool_call.session_token it is easily confused, so its description must say which id it takes.

let gw: TestGateway;
before(async () => {
  gw = await startTestGateway();
});
after(async () => gw.close());

test('process_manage describes session_id: a proc_ id from list, not the session_token', async () => {
  const client = await connect(gw.mcpUrl, 'modern');
  try {
    const { data } = await call(client, 'tool_describe', { names: ['process_manage'] });
    const schema = (data.tools as Record<string, { parameters: { properties: Record<string, { description?: string }>; required: string[] } }>).process_manage!.parameters;
    const description = schema.properties.session_id?.description ?? '';
    assert.match(description, /proc_/, description);
    assert.match(description, /\blist\b/, 'says where the id comes from');
    assert.match(description, /not the session_token/i, 'tells it apart from the capability token');
    assert.deepEqual(schema.required, ['action']);
  } finally {
    await client.close();
  }
});
