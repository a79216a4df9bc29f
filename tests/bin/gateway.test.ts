import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { packageVersion } from '../../shared/package-root.js';
import { tempDirs } from '../helpers/temp.js';

// hermes-mcp-gateway's arguments, on the built bin as a child process: only argument lists that end
// it before it serves (help, version, usage errors). Serving is the gateway tests' business.

const BIN = fileURLToPath(new URL('../../bin/gateway.js', import.meta.url));
const temp = tempDirs();
after(() => temp.removeAll());

function gateway(args: string[]) {
  const home = temp.make('gateway-bin-');
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: home, HERMES_HOME: home, HERMES_MCP_PORT: '1' };
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env, timeout: 20_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('--help prints the usage, naming the doctor subcommand and the endpoints, and exits 0', () => {
  const r = gateway(['--help']);
  assert.equal(r.status, 0);
  assert.equal(r.stderr, '');
  assert.match(r.stdout, /^usage: hermes-mcp-gateway \[--help \| --version \| --log-format json\|pretty\]\n {7}hermes-mcp-gateway doctor \[--json\]/);
  assert.match(r.stdout, /POST http:\/\/127\.0\.0\.1:3060\/mcp/);
  assert.match(r.stdout, /hermes-mcp-admission --help/);
});

test('--version prints the package version', () => {
  assert.deepEqual(gateway(['--version']), { status: 0, stdout: `hermes-mcp-gateway ${packageVersion()}\n`, stderr: '' });
});

test('an unknown argument or a bad --log-format exits 2 with the reason and the usage, before serving', () => {
  const stray = gateway(['--port', '8080']);
  assert.equal(stray.status, 2);
  assert.equal(stray.stdout, '');
  assert.match(stray.stderr, /^hermes-mcp-gateway: unexpected argument "--port"; settings come from the environment\nusage: hermes-mcp-gateway /);
  const format = gateway(['--log-format', 'xml']);
  assert.equal(format.status, 2);
  assert.match(format.stderr, /^hermes-mcp-gateway: --log-format must be one of json, pretty, got "xml"\n/);
});
