import assert from 'node:assert/strict';
import { chmodSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { packageRoot } from '../../../shared/package-root.js';
import { AgentRegistry } from '../../../supervisor/tools/agent-tasks/registry.js';
import { resolveBridgeSettings, type BridgeSettings } from '../../../supervisor/tools/agent-tasks/settings.js';
import { tempDirs } from '../../helpers/temp.js';

// The agent registry: YAML validated by schema, 0600 enforced, hot reload on mtime change, the
// last good state kept (and registry_error reported) when the file turns invalid, a synthetic
// default agent without a file, loopback/Tailscale base URLs only, keys only by reference.

const temp = tempDirs();
after(() => temp.removeAll());

function setup(hermesKey = 'sk-local') {
  const dir = temp.make('hmcp-registry-');
  writeFileSync(join(dir, 'hermes.env'), `API_SERVER_KEY=${hermesKey}\nAPI_SERVER_PORT=8642\n`, { mode: 0o600 });
  writeFileSync(join(dir, 'bridge.env'), `HERMES_ENV_PATH=${join(dir, 'hermes.env')}\nAGENTS_FILE=${join(dir, 'agents.yaml')}\nTASKS_DIR=${join(dir, 'tasks')}\nCODER_KEY=sk-coder\n`, { mode: 0o600 });
  const r = resolveBridgeSettings(join(dir, 'bridge.env'), dir, dir);
  assert.equal(r.status, 'configured', JSON.stringify(r));
  const settings = (r as { settings: BridgeSettings }).settings;
  let tick = 1_000_000;
  const write = (yaml: string, mode = 0o600) => {
    writeFileSync(settings.agentsFile, yaml, { mode });
    chmodSync(settings.agentsFile, mode);
    // A distinct mtime per write, as seconds apart on disk (some filesystems keep coarse mtimes).
    utimesSync(settings.agentsFile, ++tick, ++tick);
  };
  return { dir, settings, write, registry: new AgentRegistry(settings, { ENV_KEY: 'sk-from-env' }) };
}

const TWO = `default: coder
agents:
  - name: hermes
    description: Local Hermes
    capabilities: [code, research]
    base_url: http://127.0.0.1:8642
    key_env: ENV_KEY
  - name: coder
    kind: local
    profile: coder
    base_url: http://127.0.0.1:8642/p/coder
    key_env: CODER_KEY
`;

describe('agent registry', () => {
  test('a missing file degrades to the synthetic default agent with the Hermes .env key', () => {
    const { registry } = setup();
    const view = registry.current();
    assert.equal(view.degraded, 'no_registry');
    assert.equal(view.agents[0]!.baseUrl, 'http://127.0.0.1:8642');
    assert.deepEqual(registry.keyOf(view.agents[0]!), { key: 'sk-local' });
  });

  test('a valid file is loaded; key_env resolves from the environment, then the bridge .env', () => {
    const { registry, write } = setup();
    write(TWO);
    const view = registry.current();
    assert.equal(view.defaultName, 'coder');
    assert.equal(view.degraded, undefined);
    assert.deepEqual(registry.keyOf(registry.find('hermes')!), { key: 'sk-from-env' });
    assert.deepEqual(registry.keyOf(registry.find(undefined)!), { key: 'sk-coder' });
    assert.equal(registry.find('coder')!.profile, 'coder');
  });

  test('hot reload on mtime change; an invalid file keeps the last good state and reports registry_error', () => {
    const { registry, write } = setup();
    write(TWO);
    assert.equal(registry.current().agents.length, 2);
    write(TWO.replace('default: coder\n', '').replace(/  - name: coder[\s\S]*$/, ''));
    assert.equal(registry.current().agents.length, 1, 'reloaded');
    write('agents: [ {name: broken');
    const bad = registry.current();
    assert.equal(bad.agents.length, 1, 'last good kept');
    assert.match(bad.error!, /agents\.yaml/);
    write(TWO);
    assert.equal(registry.current().error, undefined, 'a fixed file clears the error');
  });

  test('two default: true, or a top-level default contradicting one, is registry_error; the last good state stays', () => {
    const { registry, write } = setup();
    write(TWO);
    assert.equal(registry.current().defaultName, 'coder');
    const two = 'agents:\n  - name: a\n    base_url: http://127.0.0.1:1\n    key_env: ENV_KEY\n    default: true\n  - name: b\n    base_url: http://127.0.0.1:1\n    key_env: ENV_KEY\n    default: true\n';
    write(two);
    let view = registry.current();
    assert.match(view.error!, /at most one agent may have default: true/);
    assert.equal(view.defaultName, 'coder', 'last good kept');
    write(`default: a\n${two.replace(/    default: true\n(  - name: b)/, '$1')}`);
    view = registry.current();
    assert.match(view.error!, /default names a but another agent has default: true/);
    assert.deepEqual(view.agents.map((a) => a.name), ['hermes', 'coder'], 'last good kept');
    write(`default: b\n${two.replace(/    default: true\n(  - name: b)/, '$1')}`);
    view = registry.current();
    assert.equal(view.error, undefined, 'the same default stated twice is consistent');
    assert.equal(view.defaultName, 'b');
  });

  test('a file readable by others is refused (last good kept, registry_error says chmod 600)', () => {
    const { registry, write } = setup();
    write(TWO, 0o644);
    const view = registry.current();
    assert.equal(view.degraded, 'no_registry');
    assert.match(view.error!, /chmod 600/);
  });

  test('non-loopback, non-Tailscale, named hosts and other paths are refused', () => {
    for (const url of ['http://192.168.1.10:8642', 'http://example.com', 'http://localhost:8642', 'http://127.0.0.1:8642/v1', 'http://8.8.8.8', 'ftp://127.0.0.1']) {
      const { registry, write } = setup();
      write(`agents:\n  - name: x\n    base_url: ${url}\n    key_env: ENV_KEY\n`);
      const view = registry.current();
      assert.ok(view.error, `${url} refused`);
      assert.equal(view.agents[0]!.name, 'hermes', 'the fallback stays in use');
    }
    for (const url of ['http://100.64.0.7:8642', 'http://[fd7a:115c:a1e0::1]:8642', 'http://[::1]:8642/p/dev', 'http://127.0.0.2:9']) {
      const { registry, write } = setup();
      write(`agents:\n  - name: x\n    base_url: ${url}\n    key_env: ENV_KEY\n`);
      assert.equal(registry.current().error, undefined, `${url} allowed`);
    }
  });

  test('the shipped policy/agents.example.yaml is a valid registry', () => {
    const { registry, write } = setup();
    write(readFileSync(join(packageRoot(), 'policy', 'agents.example.yaml'), 'utf8'));
    const view = registry.current();
    assert.equal(view.error, undefined);
    assert.deepEqual(view.agents.map((a) => a.name), ['hermes', 'coder', 'workstation']);
  });

  test('key_env_file: the key is read at each use from a private dotenv file (a Hermes profile .env), under key_env or API_SERVER_KEY, and never from the environment', () => {
    const { dir, registry, write } = setup();
    const profileEnv = join(dir, 'profile.env');
    writeFileSync(profileEnv, 'API_SERVER_ENABLED=true\nAPI_SERVER_KEY="sk-profile-own-0123456789"\nOTHER_KEY=sk-other\n', { mode: 0o600 });
    const open = join(dir, 'open.env');
    writeFileSync(open, 'API_SERVER_KEY=sk-open\n', { mode: 0o644 });
    chmodSync(open, 0o644);
    write(
      `agents:\n  - name: p\n    base_url: http://127.0.0.1:1/p/coder\n    key_env_file: ${profileEnv}\n` +
        `  - name: q\n    base_url: http://127.0.0.1:1/p/coder\n    key_env_file: ${profileEnv}\n    key_env: OTHER_KEY\n` +
        `  - name: r\n    base_url: http://127.0.0.1:1\n    key_env_file: ${open}\n` +
        // ENV_KEY is in the gateway's environment, but only the named file is asked.
        `  - name: s\n    base_url: http://127.0.0.1:1\n    key_env_file: ${profileEnv}\n    key_env: ENV_KEY\n` +
        `  - name: t\n    base_url: http://127.0.0.1:1\n    key_env_file: ${join(dir, 'absent.env')}\n`,
    );
    assert.equal(registry.current().error, undefined);
    assert.deepEqual(registry.keyOf(registry.find('p')!), { key: 'sk-profile-own-0123456789' });
    assert.deepEqual(registry.keyOf(registry.find('q')!), { key: 'sk-other' });
    for (const name of ['r', 's', 't']) assert.deepEqual(registry.keyOf(registry.find(name)!), { reason: 'missing_credentials' }, name);
    // A rotated key is used at once: the file is read per use.
    writeFileSync(profileEnv, 'API_SERVER_KEY=sk-profile-rotated-0123456789\n', { mode: 0o600 });
    assert.deepEqual(registry.keyOf(registry.find('p')!), { key: 'sk-profile-rotated-0123456789' });
  });

  test('key_env_file must be absolute and is not combined with key_file', () => {
    for (const entry of ['    key_env_file: relative/.env\n', '    key_env_file: /x/.env\n    key_file: /x/key\n']) {
      const { registry, write } = setup();
      write(`agents:\n  - name: x\n    base_url: http://127.0.0.1:1\n${entry}`);
      assert.match(registry.current().error ?? '', /key_env_file/, entry);
    }
  });

  test('an inline key is a schema error, never loaded', () => {
    const { registry, write } = setup();
    write('agents:\n  - name: x\n    base_url: http://127.0.0.1:1\n    api_key: sk-pasted\n');
    assert.match(registry.current().error!, /api_key|key/);
  });

  test('missing credentials: unset key_env, key_file readable by others or absent', () => {
    const { dir, registry, write } = setup();
    const open = join(dir, 'open.key');
    writeFileSync(open, 'sk-open\n', { mode: 0o644 });
    chmodSync(open, 0o644);
    const closed = join(dir, 'closed.key');
    writeFileSync(closed, 'sk-closed\n', { mode: 0o600 });
    write(
      `agents:\n  - name: a\n    base_url: http://127.0.0.1:1\n    key_env: NOPE\n  - name: b\n    base_url: http://127.0.0.1:1\n    key_file: ${open}\n` +
        `  - name: c\n    base_url: http://127.0.0.1:1\n    key_file: ${join(dir, 'absent.key')}\n  - name: d\n    base_url: http://127.0.0.1:1\n    key_file: ${closed}\n`,
    );
    for (const name of ['a', 'b', 'c']) assert.deepEqual(registry.keyOf(registry.find(name)!), { reason: 'missing_credentials' }, name);
    assert.deepEqual(registry.keyOf(registry.find('d')!), { key: 'sk-closed' });
  });

  test('a key file whose path cannot be looked at (ENOTDIR here, EACCES for a directory the gateway cannot enter) is missing_credentials, not a failed call', () => {
    const { dir, registry, write } = setup();
    const plain = join(dir, 'plain');
    writeFileSync(plain, 'not a directory\n', { mode: 0o600 });
    write(
      `agents:\n  - name: e\n    base_url: http://127.0.0.1:1\n    key_env_file: ${join(plain, '.env')}\n` +
        `  - name: f\n    base_url: http://127.0.0.1:1\n    key_file: ${join(plain, 'key')}\n`,
    );
    assert.equal(registry.current().error, undefined);
    for (const name of ['e', 'f']) assert.deepEqual(registry.keyOf(registry.find(name)!), { reason: 'missing_credentials' }, name);
  });
});

describe('bridge .env settings', () => {
  test('a bridge .env readable by others is refused; ~ paths are refused, $HOME is expanded', () => {
    const dir = temp.make('hmcp-settings-');
    const file = join(dir, 'bridge.env');
    writeFileSync(file, 'TASKS_DIR=$HOME/tasks\n', { mode: 0o644 });
    chmodSync(file, 0o644);
    assert.match((resolveBridgeSettings(file, dir, '/home/ada') as { reason: string }).reason, /chmod 600/);
    chmodSync(file, 0o600);
    const ok = resolveBridgeSettings(file, dir, '/home/ada') as { settings: BridgeSettings };
    assert.equal(ok.settings.tasksDir, '/home/ada/tasks');
    writeFileSync(file, 'TASKS_DIR=~/tasks\n');
    assert.match((resolveBridgeSettings(file, dir, '/home/ada') as { reason: string }).reason, /~ is not expanded/);
  });
});
