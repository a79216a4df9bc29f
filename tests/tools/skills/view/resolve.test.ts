import assert from 'node:assert/strict';
import { symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { collectCandidates, hasTraversal, isAbsoluteAnywhere, lookupPathError } from '../../../../supervisor/tools/skills/view/resolve.js';
import { skillsTree } from '../../../helpers/skills-tree.js';
import { tempDirs } from '../../../helpers/temp.js';

// skill_view's name checks and the candidates a name can mean (resolve.ts), on real skill trees.

const temp = tempDirs();
after(() => temp.removeAll());

test('name checks: NUL, absolute (POSIX, Windows, drive letters), and .. components', () => {
  assert.equal(hasTraversal('a/../b'), true);
  assert.equal(hasTraversal('a\\..\\b'), true);
  assert.equal(hasTraversal('a/..b/c'), false);
  assert.deepEqual(['/x', '\\x', 'C:x', 'c:/x', 'x'].map(isAbsoluteAnywhere), [true, true, true, true, false]);
  assert.equal(lookupPathError('ok/name'), null);
  assert.equal(lookupPathError('a\0b'), 'Skill name must not contain NUL characters.');
  assert.equal(lookupPathError('  /etc/passwd'), 'Skill name must be a relative path within the skills directory.');
  assert.equal(lookupPathError('x/../../y'), "Skill name cannot contain '..' path traversal components.");
});

describe('collectCandidates', () => {
  function tree(files: Record<string, string>, version?: string) {
    const { root, ctx } = skillsTree(temp, files, version);
    return { root, ctx };
  }
  const skill = (name: string) => `---\nname: ${name}\ndescription: d\n---\nbody\n`;
  const rel = (root: { dir: string }, cs: Array<{ md: string; skillDir: string | null }>) => cs.map((c) => [c.md.slice(root.dir.length + 1), c.skillDir === null ? null : c.skillDir.slice(root.dir.length + 1)]);

  test('a direct path, a directory name anywhere, a frontmatter name anywhere: one candidate per real file', async () => {
    const { root, ctx } = tree({ 'cat/demo/SKILL.md': skill('demo'), 'other/renamed/SKILL.md': skill('demo'), 'x/unrelated/SKILL.md': skill('unrelated') });
    assert.deepEqual(rel(root, await collectCandidates(root, 'cat/demo', null, ctx)), [['cat/demo/SKILL.md', 'cat/demo']]);
    assert.deepEqual(rel(root, await collectCandidates(root, 'demo', null, ctx)).sort(), [['cat/demo/SKILL.md', 'cat/demo'], ['other/renamed/SKILL.md', 'other/renamed']]);
    assert.deepEqual(await collectCandidates(root, 'nothing', null, ctx), []);
  });

  test('a legacy flat <name>.md; none inside a skill support directory', async () => {
    const { root, ctx } = tree({ 'notes.md': '# notes', 'pkg/SKILL.md': skill('pkg'), 'pkg/references/ref.md': '# ref' });
    assert.deepEqual(rel(root, await collectCandidates(root, 'notes', null, ctx)), [['notes.md', null]]);
    assert.deepEqual(await collectCandidates(root, 'pkg/references/ref', null, ctx), []);
  });

  test('a symlinked skill leaving the skills directory is no candidate by its path', async () => {
    const { root, ctx } = tree({});
    const outside = temp.make('hmcp-skill-outside-');
    writeFileSync(join(outside, 'SKILL.md'), skill('escape'));
    symlinkSync(outside, join(root.dir, 'escape'));
    assert.deepEqual(await collectCandidates(root, 'escape', null, ctx), []);
  });
});
