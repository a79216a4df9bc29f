import assert from 'node:assert/strict';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { authSettings } from '../../../supervisor/platform/settings/auth.js';

// What authentication reads from the environment: defaults under HERMES_HOME, what a public URL
// implies, and the refusals naming the variable.

const HOME = '/srv/hermes-home';

test('no variables: no credential needed, no OAuth, no extra origins, files under HERMES_HOME', () => {
  assert.deepEqual(authSettings({}, HOME), {
    publicUrls: [],
    required: false,
    oauth: false,
    allowedOrigins: [],
    database: join(HOME, 'gateway-auth.sqlite3'),
    auditLog: join(HOME, 'logs', 'gateway-auth-audit.jsonl'),
  });
});

test('HERMES_MCP_AUTH=on without a public URL: a credential is required, still no OAuth', () => {
  const s = authSettings({ HERMES_MCP_AUTH: 'on' }, HOME);
  assert.equal(s.required, true);
  assert.equal(s.oauth, false);
  assert.deepEqual(s.allowedOrigins, []);
  assert.equal(authSettings({ HERMES_MCP_AUTH: 'off' }, HOME).required, false);
  assert.equal(authSettings({ HERMES_MCP_AUTH: '' }, HOME).required, false);
});

test('a public URL: credential required, OAuth on by default (off on request), ChatGPT origins allowed', () => {
  const s = authSettings({ HERMES_MCP_PUBLIC_URL: 'https://hermes.example.test' }, HOME);
  assert.deepEqual(s.publicUrls.map((u) => u.href), ['https://hermes.example.test/']);
  assert.equal(s.required, true);
  assert.equal(s.oauth, true);
  assert.deepEqual(s.allowedOrigins, ['https://chatgpt.com', 'https://chat.openai.com']);
  const noOauth = authSettings({ HERMES_MCP_PUBLIC_URL: 'https://hermes.example.test', HERMES_MCP_OAUTH: 'off', HERMES_MCP_AUTH: 'on' }, HOME);
  assert.equal(noOauth.oauth, false);
  assert.equal(noOauth.required, true);
});

test('HERMES_MCP_ALLOWED_ORIGINS replaces the default list, an empty value means none', () => {
  const pub = { HERMES_MCP_PUBLIC_URL: 'https://hermes.example.test' };
  assert.deepEqual(authSettings({ ...pub, HERMES_MCP_ALLOWED_ORIGINS: ' https://a.example/ , https://b.example:8443,' }, HOME).allowedOrigins, ['https://a.example', 'https://b.example:8443']);
  assert.deepEqual(authSettings({ ...pub, HERMES_MCP_ALLOWED_ORIGINS: '' }, HOME).allowedOrigins, []);
  assert.deepEqual(authSettings({ HERMES_MCP_ALLOWED_ORIGINS: 'https://c.example' }, HOME).allowedOrigins, ['https://c.example']);
  for (const bad of ['http://a.example', 'https://a.example/path', 'https://a.example?x=1', 'nope']) {
    assert.throws(() => authSettings({ HERMES_MCP_ALLOWED_ORIGINS: bad }, HOME), new RegExp(`^Error: HERMES_MCP_ALLOWED_ORIGINS: ${JSON.stringify(bad).replace(/[?/.]/g, '\\$&')} must be an https origin`), bad);
  }
});

test('paths: absolute or ~-relative, resolved; a relative one is refused naming the variable', () => {
  const s = authSettings({ HERMES_MCP_AUTH_DATABASE: '/var/lib/x/../auth.db', HERMES_MCP_AUTH_AUDIT_LOG: '~/audit.jsonl', HERMES_MCP_AUTH_PASSPHRASE_FILE: '~' }, HOME);
  assert.equal(s.database, '/var/lib/auth.db');
  assert.equal(s.auditLog, join(homedir(), 'audit.jsonl'));
  assert.equal(s.passphraseFile, homedir());
  assert.equal('passphraseFile' in authSettings({ HERMES_MCP_AUTH_PASSPHRASE_FILE: '' }, HOME), false);
  for (const name of ['HERMES_MCP_AUTH_DATABASE', 'HERMES_MCP_AUTH_AUDIT_LOG', 'HERMES_MCP_AUTH_PASSPHRASE_FILE']) {
    assert.throws(() => authSettings({ [name]: 'relative/file' }, HOME), { message: `${name} must be an absolute path, got "relative/file"` });
  }
});

test('unsafe or malformed combinations are refused', () => {
  assert.throws(() => authSettings({ HERMES_MCP_AUTH: 'yes' }, HOME), { message: 'HERMES_MCP_AUTH must be on or off, got "yes"' });
  assert.throws(() => authSettings({ HERMES_MCP_OAUTH: 'ON' }, HOME), { message: 'HERMES_MCP_OAUTH must be on or off, got "ON"' });
  assert.throws(() => authSettings({ HERMES_MCP_PUBLIC_URL: 'https://hermes.example.test', HERMES_MCP_AUTH: 'off' }, HOME), /^Error: HERMES_MCP_AUTH=off with HERMES_MCP_PUBLIC_URL set/);
  assert.throws(() => authSettings({ HERMES_MCP_OAUTH: 'on' }, HOME), /^Error: HERMES_MCP_OAUTH=on needs HERMES_MCP_PUBLIC_URL/);
  assert.throws(() => authSettings({ HERMES_MCP_PUBLIC_URL: 'http://hermes.example.test' }, HOME), /HERMES_MCP_PUBLIC_URL: .* must use https/);
});
