import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { privateFileProblem, readBridgeToken, readEnvFile, resolveBridgeSettings } from '../../../supervisor/tools/agent-tasks/settings.js';
import { tempDirs } from '../../helpers/temp.js';

// The hermes-mcp-bridge .env file, read as that bridge reads it (settings.ts).

const temp = tempDirs();
after(() => temp.removeAll());

function file(dir: string, name: string, text: string, mode = 0o600): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  chmodSync(path, mode);
  return path;
}

test('readEnvFile: dotenv syntax (quotes, comments, export)', () => {
  const dir = temp.make('hmcp-bridge-');
  assert.deepEqual(readEnvFile(file(dir, '.env', '# c\nA=1\nexport B="two words"\nC=\'x\' # trailing\n')), { A: '1', B: 'two words', C: 'x' });
});

test('privateFileProblem: missing, not a regular file, readable by group or others', () => {
  const dir = temp.make('hmcp-bridge-');
  assert.equal(privateFileProblem(file(dir, 'ok', 'x', 0o600)), undefined);
  assert.equal(privateFileProblem(file(dir, 'open', 'x', 0o640)), `${join(dir, 'open')} is mode 640; run chmod 600 ${join(dir, 'open')}`);
  assert.equal(privateFileProblem(join(dir, 'absent')), `${join(dir, 'absent')} does not exist`);
  mkdirSync(join(dir, 'd'));
  assert.equal(privateFileProblem(join(dir, 'd')), `${join(dir, 'd')} is not a regular file`);
});

test('readBridgeToken: only a 64-hex MCP_AUTH_TOKEN; anything else or an unreadable file is none', () => {
  const dir = temp.make('hmcp-bridge-');
  const token = 'aB'.repeat(32);
  assert.equal(readBridgeToken(file(dir, 'a', `MCP_AUTH_TOKEN=${token}\n`)), token);
  assert.equal(readBridgeToken(file(dir, 'b', `MCP_AUTH_TOKEN=${token}0\n`)), undefined);
  assert.equal(readBridgeToken(file(dir, 'c', 'OTHER=1\n')), undefined);
  assert.equal(readBridgeToken(join(dir, 'absent')), undefined);
});

describe('resolveBridgeSettings', () => {
  test('defaults: tasks, agents and audit paths under the homes; the API on 127.0.0.1:8642 without a key', () => {
    const dir = temp.make('hmcp-bridge-');
    const env = file(dir, '.env', 'MCP_AUTH_TOKEN=x\n');
    assert.deepEqual(resolveBridgeSettings(env, '/hh', '/home/u'), {
      status: 'configured',
      settings: { envFile: env, tasksDir: '/hh/bridge-tasks', agentsFile: '/home/u/.hermes/agents.yaml', auditLog: '/hh/logs/bridge-audit.jsonl', api: { host: '127.0.0.1', port: 8642 }, keyValues: {} },
    });
  });

  test('every setting, $HOME and ${HOME} expanded, the Hermes .env giving the API; key values merge both files without the token', () => {
    const dir = temp.make('hmcp-bridge-');
    const hermesEnv = file(dir, 'hermes.env', 'API_SERVER_HOST=100.64.0.9\nAPI_SERVER_PORT=9000\nAPI_SERVER_KEY=k-secret\nSHARED=hermes\n');
    const env = file(dir, '.env', `MCP_AUTH_TOKEN=t\nMCP_PORT=8650\nHERMES_ENV_PATH=${hermesEnv}\nHERMES_CONTRACT_PATH=$HOME/contract.md\nTASKS_DIR=\${HOME}/tasks/../t\nAGENTS_FILE=/etc/agents.yaml\nAUDIT_LOG=$HOME\nSHARED=bridge\n`);
    const r = resolveBridgeSettings(env, '/hh', '/home/u');
    assert.equal(r.status, 'configured');
    if (r.status !== 'configured') return;
    const { keyValues, ...rest } = r.settings;
    assert.deepEqual(rest, { envFile: env, mcpPort: 8650, contractPath: '/home/u/contract.md', tasksDir: '/home/u/t', agentsFile: '/etc/agents.yaml', auditLog: '/home/u', api: { host: '100.64.0.9', port: 9000, key: 'k-secret' } });
    assert.equal(keyValues.SHARED, 'bridge', 'the bridge .env wins');
    assert.equal(keyValues.API_SERVER_KEY, 'k-secret');
    assert.equal(keyValues.MCP_AUTH_TOKEN, undefined);
  });

  test('invalid: a file others can read, a relative or ~ path, a port out of range, a missing Hermes .env', () => {
    const dir = temp.make('hmcp-bridge-');
    const prefix = 'bridge env file (HERMES_MCP_BRIDGE_ENV): ';
    const open = file(dir, 'open', 'A=1\n', 0o644);
    assert.deepEqual(resolveBridgeSettings(open, '/hh', '/home/u'), { status: 'invalid', reason: `${prefix}${open} is mode 644; run chmod 600 ${open}` });
    const reason = (text: string) => {
      const r = resolveBridgeSettings(file(dir, `e${Math.random()}`, text), '/hh', '/home/u');
      return r.status === 'invalid' ? r.reason : undefined;
    };
    assert.equal(reason('TASKS_DIR=~/tasks\n'), `${prefix}TASKS_DIR must be an absolute path or start with $HOME (~ is not expanded), got "~/tasks"`);
    assert.equal(reason('AGENTS_FILE=$HOMEX/a\n'), `${prefix}AGENTS_FILE must be an absolute path or start with $HOME (~ is not expanded), got "$HOMEX/a"`);
    assert.equal(reason('MCP_PORT=70000\n'), `${prefix}MCP_PORT must be an integer 0-65535, got "70000"`);
    assert.equal(reason('MCP_PORT=1.5\n'), `${prefix}MCP_PORT must be an integer 0-65535, got "1.5"`);
    assert.match(reason(`HERMES_ENV_PATH=${join(dir, 'absent.env')}\n`) ?? '', /ENOENT/);
  });
});
