import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { loadConfig, type GatewayConfig } from '../../../supervisor/platform/config.js';
import { DEFAULT_CAMOFOX_URL, resolveBrowserSettings } from '../../../supervisor/tools/browser/settings.js';
import { tempDirs } from '../../helpers/temp.js';

// The browser settings as Hermes resolves them: Camofox from the environment, the rest from
// config.yaml's browser block, the gateway's limits as defaults.

const dirs = tempDirs();
after(() => dirs.removeAll());

function configWith(yaml: string | undefined, env: NodeJS.ProcessEnv = {}): GatewayConfig {
  const home = dirs.make('browser-settings-');
  if (yaml !== undefined) writeFileSync(join(home, 'config.yaml'), yaml);
  return loadConfig({ HERMES_HOME: home, ...env });
}

test('defaults: Camofox on loopback, ephemeral identity, restricted evaluate, the gateway limits', () => {
  const config = configWith(undefined);
  const l = config.limits;
  assert.deepEqual(resolveBrowserSettings(config), {
    baseUrl: DEFAULT_CAMOFOX_URL,
    identity: { mode: 'ephemeral' },
    allowPrivateUrls: false,
    allowUnsafeEvaluate: false,
    commandTimeoutMs: l.browserCommandTimeoutSeconds * 1000,
    navigateTimeoutMs: Math.max(l.browserNavigateTimeoutSeconds, l.browserCommandTimeoutSeconds) * 1000,
    healthTimeoutMs: l.browserHealthTimeoutSeconds * 1000,
    snapshotMaxChars: l.browserSnapshotMaxChars,
    urlMaxChars: l.browserUrlMaxChars,
    typeMaxChars: l.browserTypeMaxChars,
    expressionMaxChars: l.browserExpressionMaxChars,
    questionMaxChars: l.browserQuestionMaxChars,
    screenshotDir: join(config.hermesHome, 'browser_screenshots'),
    warnings: [],
  });
  assert.equal(DEFAULT_CAMOFOX_URL, 'http://127.0.0.1:9377');
});

test('the environment: CAMOFOX_URL without trailing slashes, the API key, the user override with its session key', () => {
  const s = resolveBrowserSettings(configWith('browser:\n  camofox:\n    user_id: from-yaml\n    session_key: yaml-key\n', { CAMOFOX_URL: 'http://127.0.0.1:1234//', CAMOFOX_API_KEY: ' secret ', CAMOFOX_USER_ID: 'env-user' }));
  assert.equal(s.baseUrl, 'http://127.0.0.1:1234');
  assert.equal(s.apiKey, 'secret');
  assert.deepEqual(s.identity, { mode: 'override', userId: 'env-user', sessionKey: 'yaml-key' });
  const yamlOnly = resolveBrowserSettings(configWith('browser:\n  camofox:\n    user_id: 42\n    managed_persistence: true\n'));
  assert.deepEqual(yamlOnly.identity, { mode: 'override', userId: '42' });
});

test('managed persistence: the profile-derived state directory under HERMES_HOME', () => {
  const config = configWith('browser:\n  camofox:\n    managed_persistence: "yes"\n');
  assert.deepEqual(resolveBrowserSettings(config).identity, { mode: 'managed', stateDir: join(config.hermesHome, 'browser_auth', 'camofox') });
  assert.deepEqual(resolveBrowserSettings(configWith('browser:\n  camofox:\n    managed_persistence: "nope"\n')).identity, { mode: 'ephemeral' });
});

test('command_timeout: truncated, floored at 5 s, and navigation gets at least as long', () => {
  const config = configWith('browser:\n  command_timeout: 2.9\n');
  assert.equal(resolveBrowserSettings(config).commandTimeoutMs, 5000);
  const long = resolveBrowserSettings(configWith('browser:\n  command_timeout: "900.7"\n'));
  assert.equal(long.commandTimeoutMs, 900_000);
  assert.equal(long.navigateTimeoutMs, Math.max(config.limits.browserNavigateTimeoutSeconds, 900) * 1000);
  const bad = configWith('browser:\n  command_timeout: soon\n');
  const s = resolveBrowserSettings(bad);
  assert.equal(s.commandTimeoutMs, bad.limits.browserCommandTimeoutSeconds * 1000);
  assert.deepEqual(s.warnings, [`browser.command_timeout "soon" is not a number; using ${bad.limits.browserCommandTimeoutSeconds} s`]);
});

test('private URLs: HERMES_ALLOW_PRIVATE_URLS decides when it says yes or no, else security., then browser.', () => {
  const allow = (yaml: string, flag?: string): boolean => resolveBrowserSettings(configWith(yaml, flag === undefined ? {} : { HERMES_ALLOW_PRIVATE_URLS: flag })).allowPrivateUrls;
  assert.equal(allow('security:\n  allow_private_urls: true\n'), true);
  assert.equal(allow('browser:\n  allow_private_urls: "on"\n'), true);
  assert.equal(allow('security:\n  allow_private_urls: true\n', 'no'), false);
  assert.equal(allow('', ' YES '), true);
  assert.equal(allow('security:\n  allow_private_urls: 1\n', 'maybe'), true);
  assert.equal(allow('security:\n  allow_private_urls: 0\n', 'maybe'), false);
});

test('unsafe evaluate: allow_unsafe_evaluate, or restrict_evaluate set to a false value', () => {
  const unsafe = (yaml: string): boolean => resolveBrowserSettings(configWith(yaml)).allowUnsafeEvaluate;
  assert.equal(unsafe('browser:\n  allow_unsafe_evaluate: true\n'), true);
  assert.equal(unsafe('browser:\n  restrict_evaluate: false\n'), true);
  assert.equal(unsafe('browser:\n  restrict_evaluate: "off"\n'), true);
  assert.equal(unsafe('browser:\n  restrict_evaluate: "on"\n'), false);
  assert.equal(unsafe('browser:\n  restrict_evaluate: null\n'), false);
});

test('an unreadable config.yaml falls back to the defaults with a warning', () => {
  const config = configWith('browser: [unclosed\n');
  const s = resolveBrowserSettings(config);
  assert.equal(s.warnings.length, 1);
  assert.ok(s.warnings[0]!.startsWith(`${join(config.hermesHome, 'config.yaml')}: `), s.warnings[0]);
  assert.ok(s.warnings[0]!.endsWith('; using the browser defaults'), s.warnings[0]);
  assert.deepEqual(s.identity, { mode: 'ephemeral' });
});
