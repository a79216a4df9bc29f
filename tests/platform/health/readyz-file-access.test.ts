import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { connect, startTestGateway, viaBridge } from '../../helpers/gateway.js';
import { tempDirs } from '../../helpers/temp.js';

// /readyz shows how far the file tools reach (`file_access`) beside the components, like
// job_admission: the mode never changes the status code.

const temp = tempDirs();
after(() => temp.removeAll());

test('default: file_access is roots mode with the configured roots, and an outside read is refused', async () => {
  const gw = await startTestGateway();
  try {
    const res = await fetch(`${gw.url}/readyz`);
    const body = (await res.json()) as { status: string; file_access?: unknown; components: Record<string, unknown> };
    assert.equal(res.status, 200, JSON.stringify(body));
    assert.deepEqual(body.file_access, { mode: 'roots', roots: [gw.home] });
    assert.equal(body.components.file_access, undefined, 'a fact beside the components, not one of them');
    const outside = join(temp.make('readyz-file-access-'), 'f.txt');
    writeFileSync(outside, 'outside\n');
    const client = await connect(gw.mcpUrl, 'modern');
    assert.equal((await viaBridge(client, 'read_file', { path: outside })).data.error, 'PATH_OUTSIDE_ROOTS');
    await client.close();
  } finally {
    await gw.close();
  }
});

test('HERMES_MCP_FILE_ACCESS=hermes: file_access says so, status unchanged, and the file tools reach outside the roots', async () => {
  const gw = await startTestGateway({ env: { HERMES_MCP_FILE_ACCESS: 'hermes' } });
  try {
    const res = await fetch(`${gw.url}/readyz`);
    const body = (await res.json()) as { file_access?: unknown };
    assert.equal(res.status, 200, JSON.stringify(body));
    assert.deepEqual(body.file_access, { mode: 'hermes' });
    const outside = join(temp.make('readyz-file-access-'), 'f.txt');
    writeFileSync(outside, 'outside\n');
    const client = await connect(gw.mcpUrl, 'modern');
    assert.equal((await viaBridge(client, 'read_file', { path: outside })).data.content, '1|outside');
    await client.close();
  } finally {
    await gw.close();
  }
});
