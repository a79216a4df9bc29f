import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { tempDirs } from '../helpers/temp.js';
import { packageRoot } from '../../shared/package-root.js';
import { becomeSubreaper, subreaperAddon } from '../../shared/subreaper.js';

// The native subreaper addon: loaded once from build/Release; a missing addon is null, never a throw.
// Marking a process a subreaper is for good, so it happens in a child process, not in this one.

const temp = tempDirs();
after(() => temp.removeAll());
const built = existsSync(join(packageRoot(), 'build', 'Release', 'subreaper.node'));
const moduleUrl = new URL('../../shared/subreaper.js', import.meta.url).href;

test('subreaperAddon loads the built addon once and hands back the same object', { skip: !built && 'addon not built' }, () => {
  const addon = subreaperAddon();
  assert.ok(addon);
  assert.equal(typeof addon.setChildSubreaper, 'function');
  assert.equal(typeof addon.reap, 'function');
  assert.equal(subreaperAddon(), addon);
});

test('becomeSubreaper marks the calling process a child subreaper', { skip: !built && 'addon not built' }, () => {
  const script = `import { becomeSubreaper, subreaperAddon } from ${JSON.stringify(moduleUrl)};
const before = subreaperAddon().isChildSubreaper();
const ok = becomeSubreaper();
console.log(JSON.stringify([before, ok, subreaperAddon().isChildSubreaper()]));`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 10_000 });
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), [false, true, true]);
});

test('becomeSubreaper is false, and the addon null, where the package has no built addon', async () => {
  // The two modules copied into a package of their own, without build/: the loader finds no addon.
  const root = temp.make('subreaper-');
  mkdirSync(join(root, 'shared'));
  writeFileSync(join(root, 'package.json'), '{"name":"no-addon","version":"1.0.0","type":"module"}');
  for (const name of ['subreaper.js', 'package-root.js']) copyFileSync(fileURLToPath(new URL(`../../shared/${name}`, import.meta.url)), join(root, 'shared', name));
  const copy = (await import(pathToFileURL(join(root, 'shared', 'subreaper.js')).href)) as { becomeSubreaper: typeof becomeSubreaper; subreaperAddon: typeof subreaperAddon };
  assert.equal(copy.subreaperAddon(), null);
  assert.equal(copy.becomeSubreaper(), false);
});
