import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { managedScopeDir, SYSTEM_MANAGED_DIR } from '../../../supervisor/platform/hermes/managed-scope.js';
import { tempDirs } from '../../helpers/temp.js';

const temp = tempDirs();
after(() => temp.removeAll());

test('the managed scope is the configured directory when it is one', () => {
  const dir = temp.make('hmcp-managed-');
  assert.equal(managedScopeDir({ hermesManagedDir: dir }), dir);
});

test('a path naming nothing, or a file, is no scope at all (not the system default)', () => {
  const dir = temp.make('hmcp-managed-');
  const file = join(dir, 'config.yaml');
  writeFileSync(file, 'approvals: {}\n');
  assert.equal(managedScopeDir({ hermesManagedDir: join(dir, 'missing') }), undefined);
  assert.equal(managedScopeDir({ hermesManagedDir: file }), undefined);
  assert.equal(SYSTEM_MANAGED_DIR, '/etc/hermes');
});
