import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { connect, openSession, startTestGateway, type TestGateway, viaBridge } from '../../helpers/gateway.js';
import { tempDirs } from '../../helpers/temp.js';

// The file tools' confinement to HERMES_MCP_ROOTS through a real gateway: execute_code's
// hermes_tools (the RPC twin of the file tools) is confined exactly like tool_call, and after a
// terminal `cd` out of the roots relative paths are refused instead of resolving out there.

const py = (lines: string[]) => lines.join('\n');
const SECRET = 'outside-secret-c0ffee';

describe('file tools stay inside HERMES_MCP_ROOTS (the test gateway roots at its home)', () => {
  let gw: TestGateway;
  const temp = tempDirs();
  let outside: string;
  before(async () => {
    gw = await startTestGateway();
    outside = temp.make('file-access-rpc-');
    writeFileSync(join(outside, 'secret.txt'), `${SECRET}\n`);
  });
  after(async () => {
    await gw.close();
    temp.removeAll();
  });

  test('hermes_tools read/write/patch/search outside the roots are refused; inside they work', async () => {
    symlinkSync(outside, join(gw.home, 'outdir'));
    const client = await connect(gw.mcpUrl, 'modern');
    const secret = join(outside, 'secret.txt');
    const code = py([
      'from hermes_tools import read_file, write_file, patch, search_files',
      'import json',
      `print(json.dumps(read_file(${JSON.stringify(secret)})))`,
      'print(json.dumps(read_file("outdir/secret.txt")))',
      `print(json.dumps(write_file(${JSON.stringify(join(outside, 'planted.txt'))}, "x\\n")))`,
      'print(json.dumps(write_file("outdir/planted2.txt", "x\\n")))',
      `print(json.dumps(patch(path=${JSON.stringify(secret)}, old_string="outside-secret-c0ffef", new_string="x")))`,
      `print(json.dumps(patch(mode="patch", patch=${JSON.stringify(`*** Begin Patch\n*** Delete File: ${secret}\n*** End Patch`)})))`,
      `print(json.dumps(search_files("secret", path=${JSON.stringify(outside)})))`,
      'print(json.dumps(search_files(".", path="/proc/self/maps")))',
      'print(json.dumps(write_file("inside.txt", "in\\n")["bytes_written"]))',
      'print(json.dumps(read_file("inside.txt")["content"]))',
    ]);
    const r = await viaBridge(client, 'execute_code', { code });
    const out = String(r.data.output);
    assert.equal(r.data.status, 'success', out);
    const lines = out.trim().split('\n').map((l) => JSON.parse(l) as unknown);
    for (const refusal of lines.slice(0, 8)) {
      assert.equal((refusal as { code?: string }).code, 'PATH_OUTSIDE_ROOTS', JSON.stringify(refusal));
      assert.match(String((refusal as { error?: string }).error), /HERMES_MCP_ROOTS=/, JSON.stringify(refusal));
    }
    assert.deepEqual(lines.slice(8), [3, '1|in']);
    assert.ok(!out.includes(SECRET), 'no outside content reached the script');
    assert.equal(readFileSync(secret, 'utf8'), `${SECRET}\n`);
    assert.deepEqual(readdirSync(outside), ['secret.txt']);
    await client.close();
  });

  test('after a terminal cd out of the roots, relative paths are refused, not resolved there', async () => {
    const { client, token } = await openSession(gw.mcpUrl);
    const cd = await viaBridge(client, 'terminal', { command: `cd ${outside} && pwd` }, token);
    assert.equal(cd.data.output, outside);
    const read = await viaBridge(client, 'read_file', { path: 'secret.txt' }, token);
    assert.equal(read.data.error, 'PATH_OUTSIDE_ROOTS');
    assert.match(String(read.data.message), new RegExp(`current directory \\(${outside}\\) is outside the allowed roots`));
    assert.ok(!JSON.stringify(read.data).includes(SECRET));
    const write = await viaBridge(client, 'write_file', { path: 'planted.txt', content: 'x\n' }, token);
    assert.equal(write.data.error, 'PATH_OUTSIDE_ROOTS');
    assert.equal(existsSync(join(outside, 'planted.txt')), false);
    // The terminal itself is not confined (not a jail), and a cd back restores relative paths.
    await viaBridge(client, 'terminal', { command: `cd ${gw.home}` }, token);
    const back = await viaBridge(client, 'read_file', { path: 'SOUL.md' }, token);
    const soul = readFileSync(join(gw.home, 'SOUL.md'), 'utf8').trimEnd().split('\n');
    assert.equal(back.data.content, soul.map((line, i) => `${i + 1}|${line}`).join('\n'));
    await client.close();
  });
});
