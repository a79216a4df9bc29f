import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { connect, startTestGateway, viaBridge, type TestGateway } from '../../helpers/gateway.js';

// hermes_tools.terminal with a workdir that cannot be entered: the call fails as Hermes' does (cd's
// own message, exit code 126), and the script's next terminal calls run their own command in their
// own directory; nothing of the failed request is carried over by the exports saved on exit. cd's
// message names the wrapper line Hermes' own wrapper has it on: line 2 in Hermes 0.19, line 4 from
// 0.22.2 (two lines of agent exports before it).

for (const [version, line] of [['0.19.0', 2], ['0.22.2', 4]] as const) {
  describe(`following Hermes ${version}`, () => {
    let gw: TestGateway;
    before(async () => {
      gw = await startTestGateway({ env: { HERMES_MCP_HERMES_VERSION: version } });
    });
    after(async () => {
      await gw.close();
    });

    test('a workdir that cannot be entered fails that call only', async () => {
      const client = await connect(gw.mcpUrl, 'modern');
      const missing = join(gw.home, 'no-such-dir');
      const code = [
        'import json, hermes_tools',
        `print(json.dumps(hermes_tools.terminal("echo first", workdir=${JSON.stringify(missing)})))`,
        `print(json.dumps(hermes_tools.terminal("echo second; pwd", workdir=${JSON.stringify(gw.home)})))`,
        'print(json.dumps(hermes_tools.terminal("echo third")))',
      ].join('\n');
      const r = await viaBridge(client, 'execute_code', { code });
      assert.equal(r.data.status, 'success', JSON.stringify(r.data));
      const [failed, second, third] = String(r.data.output).trim().split('\n').map((l) => JSON.parse(l) as { output: string; exit_code: number });
      assert.equal(failed!.exit_code, 126);
      assert.match(failed!.output, new RegExp(`^\\S*bash: line ${line}: cd: .*no-such-dir: No such file or directory$`));
      assert.equal('cwd' in failed!, false, 'a directory never entered is no change of directory');
      assert.deepEqual(second, { output: `second\n${gw.home}`, exit_code: 0, error: null });
      assert.equal(third!.exit_code, 0);
      assert.match(third!.output, /^third$/);
      await client.close();
    });
  });
}
