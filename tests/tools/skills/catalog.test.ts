import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, describe, test } from 'node:test';
import { ownedRelative, pickCandidate, resolveCatalog, sortedUnique, type RootedFile } from '../../../supervisor/tools/skills/catalog.js';
import type { SkillsRoot } from '../../../supervisor/tools/skills/common.js';
import { tempDirs } from '../../helpers/temp.js';

// Which skill a name loads when several share it (catalog.ts: Hermes' resolve_skill_catalog and
// pick_skill_candidate for one root), on real files.

const temp = tempDirs();
after(() => temp.removeAll());

function skillsRoot(files: Record<string, string>): SkillsRoot {
  const dir = temp.make('hmcp-skills-catalog-');
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), text);
  }
  return { dir, real: dir };
}
const at = (root: SkillsRoot, rel: string): RootedFile => ({ md: join(root.dir, rel), real: join(root.dir, rel) });

describe('pickCandidate', () => {
  test('none is ambiguous; one wins', async () => {
    const root = skillsRoot({ 'a/SKILL.md': 'A' });
    assert.equal(await pickCandidate(root, [], 100), null);
    assert.equal(await pickCandidate(root, [at(root, 'a/SKILL.md')], 100), 0);
  });
  test('identical copies: a SKILL.md beats a flat .md, then the shallower path; equal ranks are ambiguous', async () => {
    const root = skillsRoot({ 'x/deep/SKILL.md': 'same', 'x/SKILL.md': 'same', 'flat.md': 'same', 'y/SKILL.md': 'same' });
    assert.equal(await pickCandidate(root, [at(root, 'x/deep/SKILL.md'), at(root, 'x/SKILL.md')], 100), 1, 'shallower');
    assert.equal(await pickCandidate(root, [at(root, 'flat.md'), at(root, 'x/deep/SKILL.md')], 100), 1, 'SKILL.md before depth');
    assert.equal(await pickCandidate(root, [at(root, 'x/SKILL.md'), at(root, 'y/SKILL.md')], 100), null, 'same rank');
  });
  test('different content is ambiguous; so is content over maxBytes; one real file through two paths is one skill', async () => {
    const root = skillsRoot({ 'a/SKILL.md': 'one', 'b/deep/SKILL.md': 'two', 'c/SKILL.md': 'long enough', 'd/deep/SKILL.md': 'long enough' });
    assert.equal(await pickCandidate(root, [at(root, 'a/SKILL.md'), at(root, 'b/deep/SKILL.md')], 100), null);
    assert.equal(await pickCandidate(root, [at(root, 'c/SKILL.md'), at(root, 'd/deep/SKILL.md')], 100), 0);
    assert.equal(await pickCandidate(root, [at(root, 'c/SKILL.md'), at(root, 'd/deep/SKILL.md')], 5), null, 'unreadable within the cap proves nothing');
    mkdirSync(join(root.dir, 'e'));
    symlinkSync(join(root.dir, 'a', 'SKILL.md'), join(root.dir, 'e', 'SKILL.md'));
    const real = join(root.dir, 'a', 'SKILL.md');
    assert.equal(await pickCandidate(root, [{ md: join(root.dir, 'e', 'SKILL.md'), real }, { md: real, real }], 1), null, 'one real file, equal ranks');
    assert.equal(await pickCandidate(root, [{ md: join(root.dir, 'b', 'deep', 'SKILL.md'), real }, { md: real, real }], 1), 1, 'one real file needs no read');
  });
});

test('ownedRelative: the skill directory, or a flat .md without its suffix, relative to the root (posix); the root itself is "."', () => {
  const root: SkillsRoot = { dir: '/h/skills', real: '/h/skills' };
  assert.equal(ownedRelative(root, { skillDir: '/h/skills/cat/demo', md: '/h/skills/cat/demo/SKILL.md' }), 'cat/demo');
  assert.equal(ownedRelative(root, { skillDir: null, md: '/h/skills/cat/flat.md' }), 'cat/flat');
  assert.equal(ownedRelative(root, { skillDir: '/h/skills', md: '/h/skills/SKILL.md' }), '.');
});

test('resolveCatalog: unique names load by name; a name two different skills share loads each by its path; an identical shallower copy shadows the deeper', async () => {
  const root = skillsRoot({
    'solo/SKILL.md': 'solo',
    'one/dup/SKILL.md': 'first',
    'two/dup/SKILL.md': 'second',
    'twin/SKILL.md': 'same',
    'cat/twin/SKILL.md': 'same',
  });
  const entry = (rel: string, name: string) => ({ ...at(root, rel), name });
  const resolved = await resolveCatalog(root, [entry('solo/SKILL.md', 'solo'), entry('one/dup/SKILL.md', 'dup'), entry('two/dup/SKILL.md', 'dup'), entry('twin/SKILL.md', 'twin'), entry('cat/twin/SKILL.md', 'twin')], 100);
  assert.deepEqual(
    resolved.map((r) => [r.name, r.relativePath, r.loadName]),
    [
      ['solo', 'solo', 'solo'],
      ['dup', 'one/dup', 'one/dup'],
      ['dup', 'two/dup', 'two/dup'],
      ['twin', 'twin', 'twin'],
      ['twin', 'cat/twin', null],
    ],
  );
  assert.equal(resolved[0]!.md, join(root.dir, 'solo', 'SKILL.md'), 'the entry fields are kept');
});

test('resolveCatalog: a declared name another skill has as its directory name is contested too', async () => {
  const root = skillsRoot({ 'alpha/SKILL.md': 'a', 'beta/SKILL.md': 'b' });
  const resolved = await resolveCatalog(root, [{ ...at(root, 'alpha/SKILL.md'), name: 'beta' }, { ...at(root, 'beta/SKILL.md'), name: 'gamma' }], 100);
  assert.deepEqual(resolved.map((r) => r.loadName), ['alpha', 'gamma']);
});

test('sortedUnique: code point order, duplicates dropped', () => {
  assert.deepEqual(sortedUnique(['b', 'a', 'B', 'é', 'a']), ['B', 'a', 'b', 'é']);
});
