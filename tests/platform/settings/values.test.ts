import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import {
  ConfigError,
  defaultPython,
  expandHome,
  firstExisting,
  lspConfig,
  parseCommand,
  parseFileAccess,
  parseHost,
  parseLogFormat,
  parsePort,
  parseRoots,
} from '../../../supervisor/platform/settings/values.js';
import { tempDirs } from '../../helpers/temp.js';

// Each single setting's parser: its default, what it accepts, and the ConfigError naming the
// variable for what it refuses.

const dirs = tempDirs();
after(() => dirs.removeAll());

function refuses(parse: () => unknown, message: RegExp): void {
  assert.throws(parse, (e: unknown) => e instanceof ConfigError && e.name === 'ConfigError' && message.test(e.message));
}

test('expandHome: ~ and ~/ only', () => {
  assert.equal(expandHome('~'), homedir());
  assert.equal(expandHome('~/x'), join(homedir(), 'x'));
  assert.equal(expandHome('~x'), '~x');
  assert.equal(expandHome('/a/~'), '/a/~');
});

test('host and port: loopback 127.0.0.1:3060 by default; anything else refused', () => {
  assert.equal(parseHost(undefined), '127.0.0.1');
  assert.equal(parseHost(''), '127.0.0.1');
  assert.equal(parseHost('127.9.9.9'), '127.9.9.9');
  refuses(() => parseHost('192.168.1.1'), /^HERMES_MCP_HOST=192\.168\.1\.1 is not a loopback address/);
  assert.equal(parsePort(undefined), 3060);
  assert.equal(parsePort(''), 3060);
  assert.equal(parsePort('0'), 0);
  assert.equal(parsePort('65535'), 65535);
  for (const bad of ['65536', '-1', '80.5', 'http']) refuses(() => parsePort(bad), /^HERMES_MCP_PORT must be an integer 0-65535/);
});

test('roots: ~/work by default, absolute entries resolved, empty entries skipped, relative ones refused', () => {
  assert.deepEqual(parseRoots(undefined), [join(homedir(), 'work')]);
  assert.deepEqual(parseRoots(':/a/./b::~/c:'), ['/a/b', join(homedir(), 'c')]);
  refuses(() => parseRoots('/a:b'), /^HERMES_MCP_ROOTS entries must be absolute paths, got "b"/);
});

test('file access and log format: their defaults and their lists', () => {
  assert.equal(parseFileAccess(undefined), 'roots');
  assert.equal(parseFileAccess('hermes'), 'hermes');
  refuses(() => parseFileAccess('Roots'), /^HERMES_MCP_FILE_ACCESS must be one of/);
  assert.equal(parseLogFormat(undefined), 'auto');
  assert.equal(parseLogFormat('auto'), 'auto');
  assert.equal(parseLogFormat('pretty'), 'pretty');
  refuses(() => parseLogFormat('text'), /^HERMES_MCP_LOG_FORMAT must be auto, json or pretty/);
});

test('a command: whitespace-split argv, the fallback when blank, a program by bare name or absolute path', () => {
  assert.deepEqual(parseCommand('X', '  ', ['dflt']), ['dflt']);
  assert.deepEqual(parseCommand('X', ' prog  -a\tb ', []), ['prog', '-a', 'b']);
  assert.deepEqual(parseCommand('X', '/usr/bin/prog ./rel', []), ['/usr/bin/prog', './rel']);
  refuses(() => parseCommand('X_COMMAND', './prog', []), /^X_COMMAND must name its program by a bare name found on PATH or an absolute path, got "\.\/prog"/);
});

test('the LSP settings: trusted roots, the server list file (its errors as ConfigError), the PATH', () => {
  const dir = dirs.make('hmcp-values-');
  const none = lspConfig({});
  assert.deepEqual(none.trustedRoots, []);
  assert.equal(none.searchPath, '/usr/bin:/bin');
  assert.deepEqual(lspConfig({ HERMES_MCP_LSP_TRUSTED_ROOTS: '/a::/b/../c', PATH: '/p' }).trustedRoots, ['/a', '/c']);
  assert.equal(lspConfig({ PATH: '/p' }).searchPath, '/p');
  refuses(() => lspConfig({ HERMES_MCP_LSP_TRUSTED_ROOTS: 'rel' }), /^HERMES_MCP_LSP_TRUSTED_ROOTS entries must be absolute paths/);
  const file = join(dir, 'servers.json');
  writeFileSync(file, '{not json');
  refuses(() => lspConfig({ HERMES_MCP_LSP_SERVERS: file }), /^HERMES_MCP_LSP_SERVERS: cannot read/);
  assert.deepEqual(lspConfig({ HERMES_MCP_LSP_SERVERS: '' }).servers, none.servers, 'an empty setting is the defaults');
});

test("execute_code's interpreter: the session venv's python when it exists, else the system one", () => {
  const venv = dirs.make('hmcp-values-venv-');
  const system = defaultPython({});
  assert.ok(system === '/usr/bin/python3' || system === 'python3');
  assert.equal(defaultPython({ VIRTUAL_ENV: venv }), system, 'a venv without bin/python');
  mkdirSync(join(venv, 'bin'));
  writeFileSync(join(venv, 'bin', 'python'), '');
  assert.equal(defaultPython({ VIRTUAL_ENV: venv }), join(venv, 'bin', 'python'));
  assert.equal(firstExisting(['/nonexistent', venv, '/']), venv);
  assert.equal(firstExisting(['/nonexistent']), undefined);
});
