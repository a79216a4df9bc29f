import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { resolveHonchoConfig, type HonchoResolution, type HonchoSettings } from '../../../supervisor/tools/memory/config.js';
import { makeHermesHome as writeHermesConfig } from '../../helpers/hermes.js';

// Hermes' Honcho configuration resolution (Hermes Agent's plugins/memory/honcho/client.py): which file, which host
// block, and host block > root > environment > default for each key. No network here.

let root: string;
let hermesHome: string;
let userHome: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'hmcp-honcho-cfg-'));
  hermesHome = join(root, 'hermes-home');
  userHome = join(root, 'user');
  mkdirSync(hermesHome, { recursive: true });
  mkdirSync(userHome, { recursive: true });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function writeJson(path: string, value: unknown): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, JSON.stringify(value));
}

function configured(r: HonchoResolution): HonchoSettings {
  assert.equal(r.status, 'configured', JSON.stringify(r));
  return (r as Extract<HonchoResolution, { status: 'configured' }>).settings;
}

const resolve = (env: Record<string, string> = {}, home = hermesHome) => resolveHonchoConfig(home, { HOME: userHome, ...env });

describe('which honcho.json', () => {
  test('$HERMES_HOME/honcho.json wins over ~/.hermes/honcho.json and ~/.honcho/config.json', () => {
    writeJson(join(hermesHome, 'honcho.json'), { peerName: 'local-home', baseUrl: 'http://127.0.0.1:1' });
    writeJson(join(userHome, '.hermes', 'honcho.json'), { peerName: 'default-profile', baseUrl: 'http://127.0.0.1:2' });
    writeJson(join(userHome, '.honcho', 'config.json'), { peerName: 'global', baseUrl: 'http://127.0.0.1:3' });
    const s = configured(resolve());
    assert.equal(s.identity.userPeer, 'local-home');
    assert.equal(s.source, join(hermesHome, 'honcho.json'));
  });

  test('without one, the default profile (~/.hermes/honcho.json) is next, then ~/.honcho/config.json', () => {
    const profileHome = join(userHome, '.hermes', 'profiles', 'coder');
    mkdirSync(profileHome, { recursive: true });
    writeJson(join(userHome, '.hermes', 'honcho.json'), { peerName: 'default-profile', baseUrl: 'http://127.0.0.1:2' });
    writeJson(join(userHome, '.honcho', 'config.json'), { peerName: 'global', baseUrl: 'http://127.0.0.1:3' });
    assert.equal(configured(resolve({}, profileHome)).identity.userPeer, 'default-profile');
    assert.equal(configured(resolve()).identity.userPeer, 'global', 'a HERMES_HOME outside ~/.hermes is its own default home (get_default_hermes_root)');
    rmSync(join(userHome, '.hermes'), { recursive: true });
    const s = configured(resolve());
    assert.equal(s.identity.userPeer, 'global');
    assert.equal(s.source, join(userHome, '.honcho', 'config.json'));
  });

  test('no file and no HONCHO_API_KEY/HONCHO_BASE_URL: not configured', () => {
    const r = resolve();
    assert.equal(r.status, 'not_configured');
    assert.match((r as { reason: string }).reason, /memory backend not configured/);
  });

  test('enabled: false turns a configured Honcho off', () => {
    writeJson(join(hermesHome, 'honcho.json'), { enabled: false, baseUrl: 'http://127.0.0.1:1', hosts: { hermes: { peerName: 'ada' } } });
    assert.equal(resolve().status, 'not_configured');
  });

  test('an unreadable honcho.json falls back to the environment, with a warning (as Hermes does)', () => {
    writeFileSync(join(hermesHome, 'honcho.json'), '{ not json');
    const r = resolve({ HONCHO_BASE_URL: 'http://127.0.0.1:9' });
    // The environment alone never names the user peer.
    assert.equal(r.status, 'invalid');
    assert.match((r as { reason: string }).reason, /no user peer/);
    assert.match(r.status === 'invalid' ? r.warnings.join() : '', /unreadable/);
  });
});

describe('host blocks and precedence', () => {
  test('host block beats root, root beats the environment; the base URL is a root key only (Hermes reads none from a host block)', () => {
    writeJson(join(hermesHome, 'honcho.json'), {
      apiKey: 'root-key',
      baseUrl: 'https://root.example',
      workspace: 'root-ws',
      peerName: 'root-peer',
      hosts: { hermes: { apiKey: 'host-key', baseUrl: 'https://host.example', workspace: 'host-ws', peerName: 'host-peer' } },
    });
    const s = configured(resolve({ HONCHO_API_KEY: 'env-key', HONCHO_BASE_URL: 'https://env.example' }));
    assert.deepEqual(s.identity, { host: 'hermes', workspace: 'host-ws', userPeer: 'host-peer', assistantPeer: 'chatgpt', session: basename(hermesHome) });
    assert.equal(s.baseURL, 'https://root.example');
    assert.equal(s.apiKey, 'host-key');
    assert.equal(s.apiKeySource, 'host_block');
  });

  test('keys the file leaves unset come from the environment; the workspace defaults to the host key', () => {
    writeJson(join(hermesHome, 'honcho.json'), { hosts: { hermes: { peerName: 'ada' } } });
    const s = configured(resolve({ HONCHO_API_KEY: 'env-key', HONCHO_BASE_URL: 'https://env.example/v3/' }));
    assert.equal(s.baseURL, 'https://env.example', 'a trailing /vN is stripped');
    assert.equal(s.apiKey, 'env-key');
    assert.equal(s.apiKeySource, 'environment');
    assert.equal(s.identity.workspace, 'hermes');
    assert.equal(s.identity.userPeer, 'ada');
  });

  test('HONCHO_URL is not read (Hermes always names an environment to the SDK); environment "local" maps to localhost:8000', () => {
    writeJson(join(hermesHome, 'honcho.json'), { peerName: 'ada', apiKey: 'k' });
    assert.equal(configured(resolve({ HONCHO_URL: 'http://127.0.0.1:7' })).baseURL, 'https://api.honcho.dev');
    writeJson(join(hermesHome, 'honcho.json'), { peerName: 'ada', apiKey: 'k', environment: 'local' });
    assert.equal(configured(resolve()).baseURL, 'http://localhost:8000');
    writeJson(join(hermesHome, 'honcho.json'), { peerName: 'ada', apiKey: 'k' });
    assert.equal(configured(resolve()).baseURL, 'https://api.honcho.dev');
  });

  test('HONCHO_ENVIRONMENT is read only without a honcho.json (HonchoClientConfig.from_env); in the file, host > root > production', () => {
    writeJson(join(hermesHome, 'honcho.json'), { peerName: 'ada', apiKey: 'k' });
    assert.equal(configured(resolve({ HONCHO_ENVIRONMENT: 'local' })).baseURL, 'https://api.honcho.dev', 'the file wins even where it is silent');
    writeJson(join(hermesHome, 'honcho.json'), { peerName: 'ada', apiKey: 'k', environment: 'local' });
    assert.equal(configured(resolve()).baseURL, 'http://localhost:8000');
    writeJson(join(hermesHome, 'honcho.json'), { peerName: 'ada', apiKey: 'k', environment: 'production', hosts: { hermes: { environment: 'local' } } });
    assert.equal(configured(resolve()).baseURL, 'http://localhost:8000', 'host beats root');
    writeJson(join(hermesHome, 'honcho.json'), { peerName: 'ada', apiKey: 'k', baseUrl: 'https://self.example', environment: 'local' });
    assert.equal(configured(resolve()).baseURL, 'https://self.example', 'a base URL beats any environment');
    rmSync(join(hermesHome, 'honcho.json'));
    const r = resolve({ HONCHO_ENVIRONMENT: 'staging', HONCHO_API_KEY: 'k' });
    assert.equal(r.status, 'invalid', 'an unknown environment from the env is invalid too');
  });

  test('HERMES_HONCHO_HOST selects another host block', () => {
    writeJson(join(hermesHome, 'honcho.json'), {
      baseUrl: 'http://127.0.0.1:1',
      hosts: { hermes: { peerName: 'ada' }, work: { peerName: 'ada-work', workspace: 'acme' } },
    });
    const s = configured(resolve({ HERMES_HONCHO_HOST: 'work' }));
    assert.deepEqual(s.identity, { host: 'work', workspace: 'acme', userPeer: 'ada-work', assistantPeer: 'chatgpt', session: basename(hermesHome) });
  });

  test('a profile home reads hosts.hermes_<profile> (or the legacy hermes.<profile>), falling back to the root home file', () => {
    const profileHome = join(root, 'hermes-root', 'profiles', 'coder');
    mkdirSync(profileHome, { recursive: true });
    writeJson(join(root, 'hermes-root', 'honcho.json'), { baseUrl: 'http://127.0.0.1:1', hosts: { 'hermes.coder': { peerName: 'ada-coder' }, hermes: { peerName: 'ada' } } });
    const s = configured(resolve({}, profileHome));
    assert.equal(s.identity.host, 'hermes_coder');
    assert.equal(s.identity.userPeer, 'ada-coder');
    assert.equal(s.identity.workspace, 'hermes_coder', 'the workspace defaults to the host key');
    assert.equal(s.source, join(root, 'hermes-root', 'honcho.json'));
  });

  test('defaultHost picks the host block for the default profile only; HERMES_HONCHO_HOST still wins', () => {
    writeJson(join(hermesHome, 'honcho.json'), { baseUrl: 'http://127.0.0.1:1', peerName: 'ada', defaultHost: 'local', hosts: { local: { workspace: 'local-ws' }, hermes_coder: { workspace: 'coder-ws' } } });
    assert.equal(configured(resolve()).identity.workspace, 'local-ws');
    assert.equal(configured(resolve({ HERMES_HONCHO_HOST: 'other' })).identity.host, 'other');
    const profileHome = join(hermesHome, 'profiles', 'coder');
    mkdirSync(profileHome, { recursive: true });
    writeJson(join(profileHome, 'honcho.json'), { baseUrl: 'http://127.0.0.1:1', peerName: 'ada', defaultHost: 'local', hosts: { local: { workspace: 'local-ws' }, hermes_coder: { workspace: 'coder-ws' } } });
    assert.equal(configured(resolve({}, profileHome)).identity.workspace, 'coder-ws');
  });

  test("the session is the project directory's (resolve_session_name): its name, peer-prefixed, mapped, or the workspace for global", () => {
    const project = join(root, 'work', 'My Project');
    mkdirSync(project, { recursive: true });
    const session = (file: Record<string, unknown>) => {
      writeJson(join(hermesHome, 'honcho.json'), { baseUrl: 'http://127.0.0.1:1', peerName: 'ada', ...file });
      return configured(resolveHonchoConfig(hermesHome, { HOME: userHome }, project)).identity.session;
    };
    assert.equal(session({}), 'My-Project');
    assert.equal(session({ sessionPeerPrefix: true }), 'ada-My-Project');
    assert.equal(session({ sessions: { [project]: 'pinned' } }), 'pinned');
    assert.equal(session({ workspace: 'team', sessionStrategy: 'global' }), 'team');
  });

  test('environment only: workspace hermes, but no user peer, so the configuration is invalid', () => {
    const r = resolve({ HONCHO_API_KEY: 'k' });
    assert.equal(r.status, 'invalid');
    assert.match((r as { reason: string }).reason, /peerName/);
  });

  test('only the assistant peer is the gateway\'s own: aiPeer from the file is not used, peerName is sanitized', () => {
    writeJson(join(hermesHome, 'honcho.json'), { baseUrl: 'http://127.0.0.1:1', hosts: { hermes: { peerName: 'Ada Lovelace', aiPeer: 'hermes-bot' } } });
    const s = configured(resolve());
    assert.equal(s.identity.userPeer, 'Ada-Lovelace');
    assert.equal(s.identity.assistantPeer, 'chatgpt');
  });
});

describe('credentials', () => {
  test('a loopback base URL gets the placeholder key "local" unless the host block sets a key; an environment key is not sent there', () => {
    writeJson(join(hermesHome, 'honcho.json'), { baseUrl: 'http://127.0.0.1:8000', hosts: { hermes: { peerName: 'ada' } } });
    const s = configured(resolve({ HONCHO_API_KEY: 'cloud-key' }));
    assert.equal(s.apiKey, 'local');
    assert.equal(s.apiKeySource, 'placeholder');
    writeJson(join(hermesHome, 'honcho.json'), { baseUrl: 'http://127.0.0.1:8000', hosts: { hermes: { peerName: 'ada', apiKey: 'file-key' } } });
    assert.equal(configured(resolve({ HONCHO_API_KEY: 'cloud-key' })).apiKey, 'file-key');
  });

  test('a root-level apiKey does not replace the placeholder on a loopback base URL; only a host-block key does (Hermes plugins/memory/honcho/client.py)', () => {
    writeJson(join(hermesHome, 'honcho.json'), { apiKey: 'root-cloud-key', baseUrl: 'http://127.0.0.1:8000', hosts: { hermes: { peerName: 'ada' } } });
    let s = configured(resolve());
    assert.equal(s.apiKey, 'local');
    assert.equal(s.apiKeySource, 'placeholder');
    writeJson(join(hermesHome, 'honcho.json'), { apiKey: 'root-cloud-key', peerName: 'ada', baseUrl: 'http://localhost:8000' });
    assert.equal(configured(resolve()).apiKey, 'local', 'root key and root base URL: still the placeholder');
    writeJson(join(hermesHome, 'honcho.json'), { apiKey: 'root-cloud-key', baseUrl: 'http://127.0.0.1:8000', hosts: { hermes: { peerName: 'ada', apiKey: 'host-key' } } });
    s = configured(resolve());
    assert.equal(s.apiKey, 'host-key');
    assert.equal(s.apiKeySource, 'host_block');
    writeJson(join(hermesHome, 'honcho.json'), { apiKey: 'root-cloud-key', baseUrl: 'https://honcho.example', hosts: { hermes: { peerName: 'ada' } } });
    s = configured(resolve({ HONCHO_API_KEY: 'env-key' }));
    assert.equal(s.apiKey, 'root-cloud-key', 'a remote URL still uses the root key over the environment');
    assert.equal(s.apiKeySource, 'root');
  });

  test('a remote base URL uses the environment key', () => {
    writeJson(join(hermesHome, 'honcho.json'), { baseUrl: 'https://honcho.example', hosts: { hermes: { peerName: 'ada' } } });
    assert.equal(configured(resolve({ HONCHO_API_KEY: 'cloud-key' })).apiKey, 'cloud-key');
  });

  test('config.yaml honcho.base_url fills a base URL honcho.json and the environment left unset', () => {
    writeJson(join(hermesHome, 'honcho.json'), { apiKey: 'k', peerName: 'ada' });
    writeHermesConfig(hermesHome, { config: { honcho: { base_url: 'http://127.0.0.1:4321/v3' } } });
    assert.equal(configured(resolve()).baseURL, 'http://127.0.0.1:4321');
  });

  test('an unknown environment or a non-http base URL is invalid, not silently production', () => {
    writeJson(join(hermesHome, 'honcho.json'), { apiKey: 'k', peerName: 'ada', environment: 'staging' });
    assert.equal(resolve().status, 'invalid');
    writeJson(join(hermesHome, 'honcho.json'), { peerName: 'ada', baseUrl: 'ftp://127.0.0.1/' });
    assert.equal(resolve().status, 'invalid');
  });
});
