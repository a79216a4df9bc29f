import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { openSession, startTestGateway, type TestGateway, viaBridge } from '../../helpers/gateway.js';

// File content reaches the agent in Hermes' file-read mode, redacted once: read_file, search_files
// and their execute_code twins leave a code assignment as it is and show a prefixed key as a
// sentinel that cannot be written back as a key (Hermes issue #35519), where output redaction
// would show a head/tail form that looks like a real key cut short. Command output (a terminal
// `cat` of the same file) keeps the output mode.

const PASSWORD_LINE = 'DATABASE_PASSWORD = "hunter2hunter2hunter2"';
// Assembled from pieces so this file holds no literal a secret scanner would flag; not a real key.
const PAT = 'ghp_' + 'ab1CD2ef3GH4ij5KL6mn7OP8qr9ST0uv6789';
const SOURCE = `${PASSWORD_LINE}\ntoken = "${PAT}"\n`;
const READ_BACK = `1|${PASSWORD_LINE}\n2|token = "«redacted:ghp_…»"`;
const py = (lines: string[]) => lines.join('\n');

describe('file content is redacted once, in file-read mode, through a real gateway', () => {
  let gw: TestGateway;
  let file: string;
  before(async () => {
    gw = await startTestGateway();
    file = join(gw.home, 'settings.py');
    writeFileSync(file, SOURCE);
  });
  after(async () => {
    await gw.close();
  });

  test('read_file returns the assignment untouched and the key as the sentinel', async () => {
    const { client, token } = await openSession(gw.mcpUrl);
    const r = await viaBridge(client, 'read_file', { path: file }, token);
    assert.equal(r.isError, false, JSON.stringify(r.data));
    assert.equal(r.data.content, READ_BACK);
    assert.ok(!JSON.stringify(r.result).includes(PAT.slice(4)));
    await client.close();
  });

  test('search_files matches are redacted the same way', async () => {
    const { client, token } = await openSession(gw.mcpUrl);
    const r = await viaBridge(client, 'search_files', { pattern: 'PASSWORD|token', path: gw.home, file_glob: 'settings.py' }, token);
    assert.equal(r.isError, false, JSON.stringify(r.data));
    assert.deepEqual(
      (r.data.matches as Array<{ line: number; content: string }>).map((m) => [m.line, m.content]),
      [
        [1, PASSWORD_LINE],
        [2, 'token = "«redacted:ghp_…»"'],
      ],
    );
    await client.close();
  });

  test("execute_code's hermes_tools.read_file and search_files get the same text", async () => {
    const { client, token } = await openSession(gw.mcpUrl);
    // The script compares inside the sandbox and prints verdicts only: what it prints is command
    // output, redacted in the output mode on its way back.
    const code = py([
      'from hermes_tools import read_file, search_files',
      `path = ${JSON.stringify(file)}`,
      `want = ${JSON.stringify(READ_BACK)}`,
      'content = read_file(path)["content"]',
      'print("read", content == want)',
      `lines = [m["content"] for m in search_files("PASSWORD|token", path=${JSON.stringify(gw.home)}, file_glob="settings.py")["matches"]]`,
      `print("search", lines == ${JSON.stringify([PASSWORD_LINE, 'token = "«redacted:ghp_…»"'])})`,
    ]);
    const r = await viaBridge(client, 'execute_code', { code }, token);
    assert.equal(r.data.status, 'success', String(r.data.output));
    assert.equal(r.data.output, 'read True\nsearch True\n');
    await client.close();
  });

  test('a terminal cat of the same file keeps the output mode: the key as a head/tail mask, no sentinel', async () => {
    const { client, token } = await openSession(gw.mcpUrl);
    const r = await viaBridge(client, 'terminal', { command: `cat ${file}` }, token);
    assert.equal(r.isError, false, JSON.stringify(r.data));
    const output = String(r.data.output);
    assert.match(output, /^token = "ghp_ab\.\.\.6789"$/m);
    assert.ok(!output.includes('«redacted'), output);
    assert.ok(!output.includes(PAT), output);
    // Command output other than an environment dump is redacted as code (Hermes'
    // redact_terminal_output): the assignment stays, as it does in read_file.
    assert.match(output, /^DATABASE_PASSWORD = "hunter2hunter2hunter2"$/m);
    await client.close();
  });

  test("a secret-bearing file (a shell rc) also gets the assignment passes, with the sentinel", async () => {
    const rc = join(gw.home, '.bashrc');
    writeFileSync(rc, 'export SERVICE_TOKEN=Zq8wX2vB7nM4kL9pR3tY\nexport MAX_TOKENS=100\nexport EDITOR=vim\n');
    const { client, token } = await openSession(gw.mcpUrl);
    const r = await viaBridge(client, 'read_file', { path: rc }, token);
    // The assignment passes judge a value by its name only, as Hermes' do: MAX_TOKENS holds `TOKEN`.
    assert.equal(r.data.content, '1|export SERVICE_TOKEN=«redacted-secret»\n2|export MAX_TOKENS=«redacted-secret»\n3|export EDITOR=vim');
    await client.close();
  });
});
