import { test } from 'node:test';
import assert from 'node:assert/strict';
import { scrubChildEnv } from '../../../supervisor/platform/spawning/env-scrub.js';

test('every secret substring drops the variable', () => {
  const names = [
    'OPENAI_API_KEY',
    'GH_TOKEN',
    'CLIENT_SECRET',
    'DB_PASSWORD',
    'GOOGLE_APPLICATION_CREDENTIALS',
    'SMTP_PASSWD',
    'BASIC_AUTH_USER',
    'SENTRY_DSN',
    'SLACK_WEBHOOK_URL',
    'AWS_CREDS',
    'API_BEARER',
    'TENOR_APIKEY',
  ];
  const out = scrubChildEnv(Object.fromEntries(names.map((n) => [n, 'v'])));
  assert.deepEqual(Object.keys(out), []);
});

test('the secret check runs before the safe prefixes: PATH_TOKEN and friends are dropped', () => {
  const out = scrubChildEnv({
    PATH: '/usr/bin',
    PATH_TOKEN: 't',
    HOME_API_KEY: 'k',
    USER_AUTH: 'a',
    LC_SECRET: 's',
    XDG_CREDS: 'c',
    HERMES_HOME_TOKEN: 'h',
  });
  assert.deepEqual(out, { PATH: '/usr/bin' });
});

test('secret names are matched case-insensitively (lowercase and mixed case dropped)', () => {
  const out = scrubChildEnv({
    PATH: '/usr/bin',
    github_token: 't',
    Path_Secret: 's',
    home_apikey: 'k',
    xdg_oauth_state: 'o',
    tmp_dsn: 'd',
  });
  assert.deepEqual(out, { PATH: '/usr/bin' });
});

test('safe prefixes are kept with their values', () => {
  const env = {
    PATH: '/usr/bin:/bin',
    PATHEXT: '.COM',
    HOME: '/home/h',
    USER: 'hermes',
    USERNAME: 'hermes',
    LANG: 'C.UTF-8',
    LANGUAGE: 'en',
    LC_ALL: 'C.UTF-8',
    TERM: 'xterm',
    TERM_PROGRAM: 'tmux',
    TMPDIR: '/tmp/x',
    TMP: '/tmp/y',
    TEMP: '/tmp/z',
    SHELL: '/bin/bash',
    LOGNAME: 'hermes',
    XDG_RUNTIME_DIR: '/run/user/1000',
    PYTHONPATH: '/opt/lib',
    VIRTUAL_ENV: '/opt/venv',
    CONDA_PREFIX: '/opt/conda',
  };
  assert.deepEqual(scrubChildEnv(env), env);
});

test('"PASS" alone is not a secret substring (TERM_PASSTHRU is kept)', () => {
  assert.deepEqual(scrubChildEnv({ TERM_PASSTHRU: '1', TMP_BYPASS: '2' }), { TERM_PASSTHRU: '1', TMP_BYPASS: '2' });
});

test('safe-prefix matching is case-sensitive, as Python startswith: lowercase path/home are dropped', () => {
  assert.deepEqual(scrubChildEnv({ path: '/x', home: '/h', Lang: 'C', PATH: '/usr/bin' }), { PATH: '/usr/bin' });
});

test('only HERMES_HOME, HERMES_PROFILE, HERMES_CONFIG and HERMES_ENV pass, by exact name', () => {
  const out = scrubChildEnv({
    HERMES_HOME: '/home/hermes/.hermes',
    HERMES_PROFILE: 'default',
    HERMES_CONFIG: '/c.yaml',
    HERMES_ENV: '/e.env',
    HERMES_BASE_URL: 'http://x',
    HERMES_KANBAN_DB: '/k.db',
    HERMES_TIMEZONE: 'UTC',
    HERMES_HOMEDIR: '/h',
    HERMES_RPC_SOCKET: '/s.sock',
    hermes_home: '/lower',
  });
  assert.deepEqual(out, {
    HERMES_HOME: '/home/hermes/.hermes',
    HERMES_PROFILE: 'default',
    HERMES_CONFIG: '/c.yaml',
    HERMES_ENV: '/e.env',
  });
});

test('names outside every keep list are dropped (TZ, PWD, EDITOR, NODE_ENV, DISPLAY)', () => {
  assert.deepEqual(scrubChildEnv({ TZ: 'UTC', PWD: '/w', EDITOR: 'vi', NODE_ENV: 'production', DISPLAY: ':0' }), {});
});

test('passthrough keeps secret-looking and unlisted names; absent ones are not invented', () => {
  const out = scrubChildEnv(
    { TENOR_API_KEY: 'k', EDITOR: 'vi', OTHER_TOKEN: 'o' },
    { passthrough: ['TENOR_API_KEY', 'EDITOR', 'NOT_SET'] },
  );
  assert.deepEqual(out, { TENOR_API_KEY: 'k', EDITOR: 'vi' });
});

test('passthrough names are exact and case-sensitive', () => {
  assert.deepEqual(scrubChildEnv({ tenor_api_key: 'k' }, { passthrough: ['TENOR_API_KEY'] }), {});
});

test('NODE_EXTRA_CA_CERTS and NODE_OPTIONS are dropped, even when named as passthrough', () => {
  const env = { NODE_EXTRA_CA_CERTS: '/etc/ca.pem', NODE_OPTIONS: '--require /x.js', PATH: '/bin' };
  assert.deepEqual(scrubChildEnv(env), { PATH: '/bin' });
  assert.deepEqual(scrubChildEnv(env, { passthrough: ['NODE_EXTRA_CA_CERTS', 'NODE_OPTIONS'] }), { PATH: '/bin' });
});

test('undefined values are skipped and the input is not modified', () => {
  const env: NodeJS.ProcessEnv = { PATH: '/bin', HOME: undefined, GH_TOKEN: 't' };
  const out = scrubChildEnv(env);
  assert.deepEqual(out, { PATH: '/bin' });
  assert.deepEqual(env, { PATH: '/bin', HOME: undefined, GH_TOKEN: 't' });
});

test('scrubbing the real process environment never yields a secret-looking name', () => {
  const out = scrubChildEnv({ ...process.env, SOME_SECRET_VALUE: 'x', AUTHORIZATION: 'y' });
  for (const name of Object.keys(out)) {
    assert.doesNotMatch(name.toUpperCase(), /KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL|PASSWD|AUTH|DSN|WEBHOOK|CREDS|BEARER|APIKEY/);
  }
});
