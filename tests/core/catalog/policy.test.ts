import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { isForbidden, loadToolPolicy } from '../../../supervisor/core/catalog/policy.js';
import { tempDirs } from '../../helpers/temp.js';

// The default-deny policy reader: the shipped file, and made-up ones it must refuse.

const dirs = tempDirs();
after(() => dirs.removeAll());

const VALID = {
  $comment: 'ignored',
  allow: ['read_file'],
  filteredSources: ['hermes', 'native'],
  forbidden: ['computer_use'],
  forbiddenPrefixes: ['kanban_'],
  public: ['tool_search', 'tool_describe', 'tool_call', 'session_open', 'session_close', 'startup_context'],
};

function file(content: unknown): string {
  const path = join(dirs.make('policy-'), 'tool-policy.json');
  writeFileSync(path, JSON.stringify(content));
  return path;
}

test('a policy file becomes frozen sets, the forbidden prefixes and the public order', () => {
  const policy = loadToolPolicy(file(VALID));
  assert.ok(Object.isFrozen(policy));
  assert.deepEqual([...policy.allow], ['read_file']);
  assert.deepEqual([...policy.filteredSources], ['hermes', 'native']);
  assert.deepEqual([...policy.forbidden], ['computer_use']);
  assert.deepEqual(policy.forbiddenPrefixes, ['kanban_']);
  assert.deepEqual(policy.publicOrder, VALID.public);
});

test('isForbidden: a forbidden name or any name with a forbidden prefix', () => {
  const policy = loadToolPolicy(file(VALID));
  assert.equal(isForbidden(policy, 'computer_use'), true);
  assert.equal(isForbidden(policy, 'kanban_create'), true);
  assert.equal(isForbidden(policy, 'kanban'), false);
  assert.equal(isForbidden(policy, 'read_file'), false);
});

test('the shipped policy: six public tools, the filtered upstreams, browser_cdp and kanban_* forbidden, terminal allowed', () => {
  const policy = loadToolPolicy();
  assert.equal(policy.publicOrder.length, 6);
  assert.ok(policy.filteredSources.has('hermes'));
  assert.equal(isForbidden(policy, 'browser_cdp'), true);
  assert.equal(isForbidden(policy, 'kanban_anything_new'), true);
  assert.equal(policy.allow.has('terminal'), true);
  assert.equal(isForbidden(policy, 'terminal'), false);
});

test('a malformed policy fails: a bad name, an unknown source, not six public tools, a missing field, not JSON', () => {
  for (const bad of [
    { ...VALID, allow: ['Read-File'] },
    { ...VALID, filteredSources: ['elsewhere'] },
    { ...VALID, public: VALID.public.slice(0, 5) },
    { ...VALID, forbidden: undefined },
    { ...VALID, allow: ['x'.repeat(65)] },
  ]) {
    assert.throws(() => loadToolPolicy(file(bad)), (e: unknown) => e instanceof Error && e.name === 'ValiError', JSON.stringify(bad));
  }
  const broken = join(dirs.make('policy-'), 'broken.json');
  writeFileSync(broken, '{');
  assert.throws(() => loadToolPolicy(broken), SyntaxError);
  assert.throws(() => loadToolPolicy(join(broken, 'absent.json')), /ENOTDIR|ENOENT/);
});
