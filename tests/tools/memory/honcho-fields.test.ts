import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HermesRelease } from '../../../supervisor/platform/hermes/release.js';
import { fromEnv, fromFile, isObject, printableUrl, rulesOf, str, type Rules } from '../../../supervisor/tools/memory/honcho-fields.js';

// The raw Honcho fields as Hermes reads them, under the rules of the Hermes the gateway fronts.

const NEW: Rules = { baseUrlSources: true, printableBaseUrl: true, rootKeyOnLocal: true, sessionAiPeerPrefix: true };
const OLD: Rules = { baseUrlSources: false, printableBaseUrl: false, rootKeyOnLocal: false, sessionAiPeerPrefix: false };

test('isObject and str: plain objects only; trimmed non-empty strings only', () => {
  assert.equal(isObject({}), true);
  assert.equal(isObject([]), false);
  assert.equal(isObject(null), false);
  assert.equal(isObject('x'), false);
  assert.equal(str('  a b '), 'a b');
  assert.equal(str('   '), undefined);
  assert.equal(str(5), undefined);
});

test('rulesOf: by release; 0.19.0 has none, 0.20.1 the base URL rules, an unknown version all', () => {
  assert.deepEqual(rulesOf(new HermesRelease('0.19.0')), OLD);
  assert.deepEqual(rulesOf(new HermesRelease('0.20.1')), { baseUrlSources: true, printableBaseUrl: true, rootKeyOnLocal: true, sessionAiPeerPrefix: false });
  assert.deepEqual(rulesOf(new HermesRelease('0.21.3')), NEW);
  assert.deepEqual(rulesOf(new HermesRelease(undefined)), NEW);
});

test('printableUrl: a URL with a non-printable character is dropped with a warning, from 0.20.1 only', () => {
  const warnings: string[] = [];
  assert.equal(printableUrl('http://h:8000', NEW, warnings), 'http://h:8000');
  assert.equal(printableUrl(undefined, NEW, warnings), undefined);
  assert.deepEqual(warnings, []);
  assert.equal(printableUrl('http://h\u00e9', OLD, warnings), 'http://h\u00e9');
  assert.deepEqual(warnings, []);
  assert.equal(printableUrl('http://h\t', NEW, warnings), undefined);
  assert.deepEqual(warnings, ['the Honcho base URL "http://h\\t" has non-printable characters and is ignored, as Hermes ignores it']);
});

test('fromEnv: workspace hermes, enabled by a key or a URL; HONCHO_URL only from 0.20.1', () => {
  assert.deepEqual(fromEnv({}, NEW, []), {
    apiKeySource: 'none', explicitKey: false, workspace: 'hermes', environment: 'production', enabled: false, enabledExplicit: false,
    reasoningDynamic: true, sessionStrategy: 'per-directory', sessionPeerPrefix: false, sessionAiPeerPrefix: false, sessions: {}, aiObserveOthers: true,
  });
  const keyed = fromEnv({ HONCHO_API_KEY: ' k ', HONCHO_ENVIRONMENT: 'local' }, NEW, []);
  assert.equal(keyed.apiKey, 'k');
  assert.equal(keyed.apiKeySource, 'environment');
  assert.equal(keyed.environment, 'local');
  assert.equal(keyed.enabled, true);
  assert.equal(fromEnv({ HONCHO_URL: 'http://u' }, NEW, []).baseUrl, 'http://u');
  assert.equal(fromEnv({ HONCHO_URL: 'http://u' }, NEW, []).enabled, true);
  assert.equal('baseUrl' in fromEnv({ HONCHO_URL: 'http://u' }, OLD, []), false);
  assert.equal(fromEnv({ HONCHO_BASE_URL: 'http://b', HONCHO_URL: 'http://u' }, NEW, []).baseUrl, 'http://b');
});

test('fromFile: the host block wins over the root, the root over the environment', () => {
  const raw = {
    apiKey: 'root-key', workspace: 'root-ws', peerName: 'root-peer', environment: 'local',
    hosts: { hermes: { apiKey: 'host-key', workspace: 'host-ws', aiPeer: 'host-ai', dialecticReasoningLevel: 'high', contextTokens: 1200 } },
    sessions: { '/repo': 'repo-session', '/bad': 7 },
  };
  const f = fromFile(raw, 'hermes', { HONCHO_API_KEY: 'env-key' }, NEW, []);
  assert.equal(f.apiKey, 'host-key');
  assert.equal(f.apiKeySource, 'host_block');
  assert.equal(f.explicitKey, true);
  assert.equal(f.workspace, 'host-ws');
  assert.equal(f.peerName, 'root-peer');
  assert.equal(f.environment, 'local');
  assert.equal(f.aiPeer, 'host-ai');
  assert.equal(f.reasoningLevel, 'high');
  assert.equal(f.contextTokens, 1200);
  assert.equal(f.enabled, true);
  assert.equal(f.enabledExplicit, false);
  assert.deepEqual(f.sessions, { '/repo': 'repo-session' });
});

test('fromFile: key sources and which key is explicit (the root key only from 0.20.1)', () => {
  const root = fromFile({ apiKey: 'r' }, 'hermes', {}, NEW, []);
  assert.deepEqual([root.apiKey, root.apiKeySource, root.explicitKey], ['r', 'root', true]);
  assert.equal(fromFile({ apiKey: 'r' }, 'hermes', {}, OLD, []).explicitKey, false);
  const env = fromFile({}, 'hermes', { HONCHO_API_KEY: 'e' }, NEW, []);
  assert.deepEqual([env.apiKey, env.apiKeySource, env.explicitKey], ['e', 'environment', false]);
  const none = fromFile({}, 'work', {}, NEW, []);
  assert.deepEqual([none.apiKeySource, none.workspace, none.enabled], ['none', 'work', false]);
});

test('fromFile: base URL order differs by release', () => {
  const raw = { baseUrl: 'http://root', endpoint: { baseUrl: 'http://endpoint' }, hosts: { hermes: { base_url: 'http://host' } } };
  assert.equal(fromFile(raw, 'hermes', {}, NEW, []).baseUrl, 'http://host');
  assert.equal(fromFile(raw, 'hermes', {}, OLD, []).baseUrl, 'http://root');
  assert.equal(fromFile({ baseUrl: 'http://root', endpoint: { baseUrl: 'http://endpoint' } }, 'hermes', {}, NEW, []).baseUrl, 'http://endpoint');
  assert.equal(fromFile({ base_url: 'http://r2' }, 'hermes', { HONCHO_BASE_URL: 'http://env' }, NEW, []).baseUrl, 'http://r2');
  assert.equal(fromFile({}, 'hermes', { HONCHO_URL: 'http://sdk' }, NEW, []).baseUrl, 'http://sdk');
  assert.equal(fromFile({}, 'hermes', { HONCHO_URL: 'http://sdk' }, OLD, []).baseUrl, undefined);
  const warnings: string[] = [];
  const dropped = fromFile({ baseUrl: 'http://x\u0000' }, 'hermes', {}, NEW, warnings);
  assert.equal('baseUrl' in dropped, false);
  assert.equal(dropped.enabled, false);
  assert.equal(warnings.length, 1);
});

test('fromFile: a legacy hermes.<profile> block serves host hermes_<profile>; an empty block falls back to it', () => {
  const raw = { hosts: { 'hermes.work': { workspace: 'legacy-ws' }, hermes_work: {} } };
  assert.equal(fromFile(raw, 'hermes_work', {}, NEW, []).workspace, 'legacy-ws');
  assert.equal(fromFile({ hosts: { hermes_work: { workspace: 'new-ws' }, 'hermes.work': { workspace: 'legacy-ws' } } }, 'hermes_work', {}, NEW, []).workspace, 'new-ws');
  assert.equal(fromFile({ hosts: { 'other.work': { workspace: 'x' } } }, 'other_work', {}, NEW, []).workspace, 'other_work');
});

test('fromFile: enabled, dialecticDynamic and the prefixes take the first set value, false included', () => {
  const f = fromFile({ apiKey: 'k', enabled: true, dialecticDynamic: true, sessionPeerPrefix: true, hosts: { hermes: { enabled: false, dialecticDynamic: false, sessionAiPeerPrefix: true } } }, 'hermes', {}, NEW, []);
  assert.equal(f.enabled, false);
  assert.equal(f.enabledExplicit, true);
  assert.equal(f.reasoningDynamic, false);
  assert.equal(f.sessionPeerPrefix, true);
  assert.equal(f.sessionAiPeerPrefix, true);
  const nulls = fromFile({ enabled: null, dialecticDynamic: null }, 'hermes', {}, NEW, []);
  assert.equal(nulls.enabledExplicit, false);
  assert.equal(nulls.reasoningDynamic, true);
});

test('fromFile: contextTokens only as a positive safe integer; observation.ai.observeOthers read from host then root', () => {
  for (const bad of [0, -5, 1.5, 'many', null]) assert.equal('contextTokens' in fromFile({ contextTokens: bad }, 'hermes', {}, NEW, []), false, String(bad));
  assert.equal(fromFile({ contextTokens: '300' }, 'hermes', {}, NEW, []).contextTokens, 300);
  assert.equal(fromFile({ observation: { ai: { observeOthers: false } } }, 'hermes', {}, NEW, []).aiObserveOthers, false);
  assert.equal(fromFile({ observation: { ai: {} } }, 'hermes', {}, NEW, []).aiObserveOthers, true);
  assert.equal(fromFile({ observation: { ai: { observeOthers: false } }, hosts: { hermes: { observation: { ai: { observeOthers: 1 } } } } }, 'hermes', {}, NEW, []).aiObserveOthers, true);
  assert.equal(fromFile({ sessionStrategy: ' global ' }, 'hermes', {}, NEW, []).sessionStrategy, 'global');
});
