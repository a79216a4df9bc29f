import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, describe, test } from 'node:test';
import { isDisabled, locate } from '../../../../supervisor/tools/skills/view/locate.js';
import type { Candidate } from '../../../../supervisor/tools/skills/view/resolve.js';
import { skillsTree } from '../../../helpers/skills-tree.js';
import { tempDirs } from '../../../helpers/temp.js';

// Which of several candidates skill_view loads, and whether skills.disabled hides it, on real trees.

const temp = tempDirs();
after(() => temp.removeAll());

const skill = (name: string, body = 'body') => `---\nname: ${name}\ndescription: d\n---\n${body}\n`;

function tree(files: Record<string, string>, version: string | undefined) {
  const { home, root, ctx } = skillsTree(temp, files, version);
  const dir = root.dir;
  const cand = (rel: string): Candidate => {
    const md = join(dir, rel);
    return { skillDir: rel.endsWith('SKILL.md') ? dirname(md) : null, md, real: md };
  };
  return { home, root, ctx, cand };
}

function ambiguous(check: (details: Record<string, unknown>, message: string) => void) {
  return (e: unknown) => {
    const err = e as { code?: string; message: string; details?: Record<string, unknown> };
    assert.equal(err.code, 'SKILL_AMBIGUOUS');
    check(err.details ?? {}, err.message);
    return true;
  };
}

describe('locate', () => {
  test('no candidate or one: that one', async () => {
    const { root, ctx, cand } = tree({ 'a/demo/SKILL.md': skill('demo') }, '0.19.0');
    assert.equal(await locate(ctx, root, 'demo', []), undefined);
    const one = cand('a/demo/SKILL.md');
    assert.equal(await locate(ctx, root, 'demo', [one]), one);
  });

  test('before 0.22 any two are ambiguous, even identical copies', async () => {
    const { root, ctx, cand } = tree({ 'a/demo/SKILL.md': skill('demo'), 'b/c/demo/SKILL.md': skill('demo') }, '0.21.0');
    const both = [cand('a/demo/SKILL.md'), cand('b/c/demo/SKILL.md')];
    await assert.rejects(
      locate(ctx, root, 'demo', both),
      ambiguous((details, message) => {
        assert.equal(message, "Ambiguous skill name 'demo': 2 skills match across your local skills dir and external_dirs. Refusing to guess — load one explicitly by its categorized path.");
        assert.deepEqual(details.matches, both.map((c) => c.md));
        assert.equal(details.success, false);
      }),
    );
  });

  test('since 0.22 identical copies resolve to the shallowest SKILL.md', async () => {
    const { root, ctx, cand } = tree({ 'b/c/demo/SKILL.md': skill('demo'), 'a/demo/SKILL.md': skill('demo'), 'demo.md': skill('demo') }, '0.22.2');
    const deep = cand('b/c/demo/SKILL.md');
    const shallow = cand('a/demo/SKILL.md');
    assert.equal(await locate(ctx, root, 'demo', [deep, shallow]), shallow);
    // A real SKILL.md beats a flat <name>.md even when that is shallower.
    assert.equal(await locate(ctx, root, 'demo', [cand('demo.md'), deep]), deep);
  });

  test('since 0.22 different copies are refused with each copy load name', async () => {
    const { root, ctx, cand } = tree({ 'b/demo/SKILL.md': skill('demo', 'one'), 'a/demo/SKILL.md': skill('demo', 'two') }, '0.22.2');
    await assert.rejects(
      locate(ctx, root, 'demo', [cand('b/demo/SKILL.md'), cand('a/demo/SKILL.md')]),
      ambiguous((details, message) => {
        assert.equal(message, "Ambiguous skill name 'demo': use one of a/demo, b/demo. 2 different skills share this name in the same skills directory tier; refusing to guess.");
        assert.deepEqual(details.load_names, ['a/demo', 'b/demo']);
      }),
    );
  });

  test('identical copies of equal rank are ambiguous too; a top-level copy has no load name but its bare one', async () => {
    const { root, ctx, cand } = tree({ 'demo/SKILL.md': skill('demo'), 'x/SKILL.md': skill('demo') }, '0.22.2');
    await assert.rejects(
      locate(ctx, root, 'demo', [cand('demo/SKILL.md'), cand('x/SKILL.md')]),
      ambiguous((details) => assert.deepEqual(details.load_names, ['x'])),
    );
  });
});

describe('isDisabled', () => {
  const config = (names: string[]) => `skills:\n  disabled:\n${names.map((n) => `    - ${n}`).join('\n')}\n`;

  test('by the declared name, whatever the release; nothing without config.yaml', async () => {
    const { home, root, ctx, cand } = tree({ 'a/demo/SKILL.md': skill('demo') }, '0.19.0');
    assert.equal(await isDisabled(ctx, root, cand('a/demo/SKILL.md'), 'demo'), false);
    writeFileSync(join(home, 'config.yaml'), config(['demo']));
    assert.equal(await isDisabled(ctx, root, cand('a/demo/SKILL.md'), 'demo'), true);
    assert.equal(await isDisabled(ctx, root, cand('a/demo/SKILL.md'), 'other'), false);
  });

  test('since 0.22 also by the path that is this copy load name', async () => {
    const files = { 'a/demo/SKILL.md': skill('demo', 'one'), 'b/demo/SKILL.md': skill('demo', 'two'), 'x/solo/SKILL.md': skill('solo') };
    const newer = tree(files, '0.22.2');
    writeFileSync(join(newer.home, 'config.yaml'), config(['a/demo', 'x/solo']));
    assert.equal(await isDisabled(newer.ctx, newer.root, newer.cand('a/demo/SKILL.md'), 'demo'), true);
    assert.equal(await isDisabled(newer.ctx, newer.root, newer.cand('b/demo/SKILL.md'), 'demo'), false);
    // solo is loaded by its unique name, not by x/solo: that path names no load name.
    assert.equal(await isDisabled(newer.ctx, newer.root, newer.cand('x/solo/SKILL.md'), 'solo'), false);

    const older = tree(files, '0.21.0');
    writeFileSync(join(older.home, 'config.yaml'), config(['a/demo']));
    assert.equal(await isDisabled(older.ctx, older.root, older.cand('a/demo/SKILL.md'), 'demo'), false);
  });
});
