import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { valid, gte } from '@renovatebot/pep440';
import { API_SERVER_CHANGES, CRON_CHANGES, HONCHO_CHANGES, SESSION_SEARCH_CHANGES, SKILLS_CHANGES, TERMINAL_CHANGES, TOOL_SERVER_CHANGES } from '../../../supervisor/platform/hermes/changes.js';
import { FILE_TOOL_CHANGES } from '../../../supervisor/platform/hermes/file-tool-changes.js';
import { HERMES_CHANGES, HermesRelease, hermesSupport, usableVersion } from '../../../supervisor/platform/hermes/release.js';
import { tempDirs } from '../../helpers/temp.js';

// Which Hermes the gateway fronts: its version, the changes it has, and the supported range.

const dirs = tempDirs();
after(() => dirs.removeAll());

function policy(content: unknown): string {
  const file = join(dirs.make('hermes-versions-'), 'hermes-versions.json');
  writeFileSync(file, JSON.stringify(content));
  return file;
}

test('HERMES_CHANGES is the union of the tables, no name in two of them, each since a version after 0.19.0', () => {
  const tables = [FILE_TOOL_CHANGES, TERMINAL_CHANGES, SESSION_SEARCH_CHANGES, CRON_CHANGES, HONCHO_CHANGES, TOOL_SERVER_CHANGES, API_SERVER_CHANGES, SKILLS_CHANGES];
  const names = tables.flatMap((t) => Object.keys(t));
  assert.equal(new Set(names).size, names.length);
  assert.deepEqual(Object.keys(HERMES_CHANGES).sort(), [...names].sort());
  for (const [name, change] of Object.entries(HERMES_CHANGES)) {
    assert.notEqual(valid(change.since), null, name);
    const since: string = change.since;
    assert.ok(gte(since, '0.19.0') && since !== '0.19.0', `${name}: ${since}`);
    assert.ok(change.what.length > 20, name);
  }
});

test('has: by the first release with the change; an unknown version has every change', () => {
  assert.equal(new HermesRelease('0.19.0').has('honcho_base_url_sources'), false);
  assert.equal(new HermesRelease('0.20.0').has('honcho_base_url_sources'), false);
  assert.equal(new HermesRelease('0.20.1').has('honcho_base_url_sources'), true);
  assert.equal(new HermesRelease('0.21.2').has('honcho_session_ai_peer_prefix'), false);
  assert.equal(new HermesRelease('0.21.3').has('honcho_session_ai_peer_prefix'), true);
  assert.equal(new HermesRelease('0.22.2.post1').has('process-manage-schema'), true);
  assert.equal(new HermesRelease('0.22.2rc1').has('process-manage-schema'), false);
  assert.equal(new HermesRelease(undefined).has('process-manage-schema'), true);
});

test('supported: inside policy/hermes-versions.json; an unknown version is not', () => {
  const range = hermesSupport().supported;
  assert.equal(range, '>=0.19.0,<0.24');
  assert.equal(new HermesRelease('0.19.0').supported, true);
  assert.equal(new HermesRelease('0.23.9').supported, true);
  assert.equal(new HermesRelease('0.18.9').supported, false);
  assert.equal(new HermesRelease('0.24.0').supported, false);
  assert.equal(new HermesRelease(undefined).supported, false);
});

test('describe: the version, or the newest known', () => {
  assert.equal(new HermesRelease('0.22.2').describe(), 'Hermes 0.22.2');
  assert.equal(new HermesRelease(undefined).describe(), 'the newest Hermes the gateway knows');
});

test('usableVersion: trimmed valid PEP 440, never the 0.0.0 placeholder', () => {
  assert.equal(usableVersion(' 0.22.2.post1\n'), '0.22.2.post1');
  assert.equal(usableVersion('1.0rc2'), '1.0rc2');
  for (const text of [undefined, '', '  ', '0.0.0', 'not-a-version', 'v?1']) assert.equal(usableVersion(text), undefined, String(text));
});

test('hermesSupport: the project policy is frozen and every run/read version is inside the range', () => {
  const s = hermesSupport();
  assert.equal(Object.isFrozen(s), true);
  assert.equal(Object.isFrozen(s.run), true);
  assert.ok(s.run.length >= 1);
  assert.equal(hermesSupport(), s);
});

test('hermesSupport: another file is parsed and checked; a version outside the range or a bad one is refused', () => {
  const ok = hermesSupport(policy({ $comment: 'x', supported: '>=1.0', run: ['1.2'], read: [] }));
  assert.deepEqual({ ...ok, run: [...ok.run], read: [...ok.read] }, { supported: '>=1.0', run: ['1.2'], read: [] });
  assert.throws(() => hermesSupport(policy({ supported: '>=1.0,<2', run: ['1.2'], read: ['2.1'] })), { message: 'policy/hermes-versions.json: 2.1 is outside the supported range >=1.0,<2' });
  assert.throws(() => hermesSupport(policy({ supported: '>=1.0', run: [], read: [] })));
  assert.throws(() => hermesSupport(policy({ supported: '>=1.0', run: ['banana'], read: [] })), /a PEP 440 version/);
  assert.throws(() => hermesSupport(policy({ supported: 'nonsense', run: ['1.0'], read: [] })), /a PEP 440 specifier/);
  // Reading another file leaves the shipped policy as it was for every later call.
  assert.notEqual(hermesSupport().supported, '>=1.0');
  assert.equal(hermesSupport(), hermesSupport());
});
