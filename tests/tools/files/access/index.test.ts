import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { ErrorCode, GatewayError } from '../../../../shared/errors.js';
import { authFileSpellings, requirePath, resolveAccess, type PathDeps } from '../../../../supervisor/tools/files/access/index.js';
import { tempDirs } from '../../../helpers/temp.js';

// resolveAccess is the one way a file tool reaches a path: it resolves, confines and judges, and
// returns the facts (a blocked device, Hermes' read verdict, the Hermes directories) for the tool
// to refuse in Hermes' order; only a path outside the roots or an invalid one is refused here.

const temp = tempDirs();
after(() => temp.removeAll());

function setup(): { deps: PathDeps; root: string; home: string } {
  const root = fs.realpathSync(temp.make('access-'));
  const home = join(root, '.hermes');
  fs.mkdirSync(home);
  fs.mkdirSync(join(root, 'private'));
  const deps: PathDeps = { hermesHome: home, cwdFor: () => root, access: { mode: 'roots', roots: [root] } };
  return { deps, root, home };
}

test('read: a relative path resolves against the owner cwd; an .env is blocked and secret-bearing, a plain file neither', async () => {
  const { deps, root } = setup();
  fs.writeFileSync(join(root, '.env'), 'A=1\n');
  fs.writeFileSync(join(root, 'notes.txt'), 'hi\n');
  const env = await resolveAccess(deps, '.env', undefined, 'read');
  assert.equal(env.real, join(root, '.env'));
  assert.equal(env.device, false);
  assert.match(env.verdict.blocked ?? '', /secret-bearing environment file/);
  assert.equal(env.verdict.secretFile, true);
  const notes = await resolveAccess(deps, 'notes.txt', undefined, 'read');
  assert.deepEqual(notes.verdict, { blocked: null, secretFile: false });
});

test('read: a device path is reported, not refused (read_file refuses it first, in Hermes order)', async () => {
  const { deps } = setup();
  const access = await resolveAccess({ ...deps, access: { mode: 'hermes', roots: [] } }, '/dev/zero', undefined, 'read');
  assert.equal(access.device, true);
});

test('a path outside the roots is PATH_OUTSIDE_ROOTS; a NUL byte is INVALID_PATH', async () => {
  const { deps } = setup();
  await assert.rejects(resolveAccess(deps, '/etc/hostname', undefined, 'read'), (e: unknown) => e instanceof GatewayError && e.code === ErrorCode.PATH_OUTSIDE_ROOTS);
  await assert.rejects(resolveAccess(deps, 'a\0b', undefined, 'write'), (e: unknown) => e instanceof GatewayError && e.code === ErrorCode.INVALID_PATH);
});

test('configured auth files are judged like their default places: blocked for read and search, named in the write dirs', async () => {
  const { deps, root } = setup();
  const passphrase = join(root, 'private', 'consent-passphrase');
  fs.writeFileSync(passphrase, 'x\n');
  const authFiles = authFileSpellings({ passphraseFile: passphrase, database: join(root, 'private', 'auth.db') });
  assert.ok(authFiles.has(join(root, 'private', 'auth.db-wal')));
  const withAuth = { ...deps, authFiles };
  assert.match((await resolveAccess(withAuth, passphrase, undefined, 'read')).verdict.blocked ?? '', /authentication files/);
  assert.match((await resolveAccess(withAuth, join(root, 'private'), undefined, 'search')).blocked ?? 'none', /none/);
  assert.match((await resolveAccess(withAuth, passphrase, undefined, 'search')).blocked ?? '', /authentication files/);
  assert.ok((await resolveAccess(withAuth, passphrase, undefined, 'write')).dirs.authFiles.has(passphrase));
  // Without the configuration the same file is an ordinary one.
  assert.equal((await resolveAccess(deps, passphrase, undefined, 'read')).verdict.blocked, null);
});

test('requirePath: a non-empty string, else INVALID_ARGUMENTS naming the tool', () => {
  assert.equal(requirePath({ path: 'a' }, 'read_file'), 'a');
  assert.throws(() => requirePath({ path: '' }, 'write_file'), /write_file: missing required field 'path'/);
  assert.throws(() => requirePath({}, 'read_file'), (e: unknown) => e instanceof GatewayError && e.code === ErrorCode.INVALID_ARGUMENTS);
});
