import assert from 'node:assert/strict';
import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, describe, test } from 'node:test';
import { loadLimits, type Limits } from '../../../../shared/limits.js';
import { HermesRelease } from '../../../../supervisor/platform/hermes/release.js';
import type { SkillsContext } from '../../../../supervisor/tools/skills/common.js';
import { linkedFiles, serveSkillFile } from '../../../../supervisor/tools/skills/view/files.js';
import { tempDirs } from '../../../helpers/temp.js';

// A skill's linked files (listed for skill_view) and one served by file_path, on real trees.

const temp = tempDirs();
after(() => temp.removeAll());

function skillDir(files: Record<string, string | Buffer>): string {
  const dir = join(realpathSync(temp.make('hmcp-skill-files-')), 'demo');
  mkdirSync(dir);
  for (const [rel, body] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), body);
  }
  return dir;
}

function ctx(version: string | undefined, overrides: Partial<Limits> = {}): SkillsContext {
  return { hermesHome: '/nonexistent', limits: loadLimits({}, overrides), kanbanContext: false, inheritedEnvironment: {}, release: new HermesRelease(version) };
}

function refused(code: string, check: (message: string, details: Record<string, unknown>) => void = () => undefined) {
  return (e: unknown) => {
    const err = e as { code?: string; message: string; details?: Record<string, unknown> };
    assert.equal(err.code, code, err.message);
    check(err.message, err.details ?? {});
    return true;
  };
}

describe('linkedFiles', () => {
  test('each support dir by its own extensions and depth, keys in Hermes order, paths sorted', async () => {
    const dir = skillDir({
      'SKILL.md': 'x',
      'scripts/run.sh': '',
      'scripts/tool.py': '',
      'scripts/notes.txt': '',
      'scripts/deep/inner.py': '',
      'references/b.md': '',
      'references/a.md': '',
      'references/data.json': '',
      'references/sub/deep.md': '',
      'templates/t.yaml': '',
      'templates/nested/t.md': '',
      'templates/skip.txt': '',
      'assets/logo.png': '',
      'assets/any/thing.bin': '',
      'other/x.md': '',
    });
    const out = await linkedFiles(dir, dir, loadLimits({}, {}));
    assert.deepEqual(Object.keys(out), ['references', 'templates', 'assets', 'scripts']);
    assert.deepEqual(out.references, ['references/a.md', 'references/b.md']);
    assert.deepEqual(out.templates, ['templates/nested/t.md', 'templates/t.yaml']);
    assert.deepEqual(out.assets, ['assets/any/thing.bin', 'assets/logo.png']);
    // Grouped by extension in the spec's order (.py before .sh).
    assert.deepEqual(out.scripts, ['scripts/tool.py', 'scripts/run.sh']);
  });

  test('a skill without support files has none; a symlink leaving the support dir is not listed', async () => {
    assert.deepEqual(await linkedFiles(skillDir({ 'SKILL.md': 'x' }), skillDir({ 'SKILL.md': 'x' }), loadLimits({}, {})), {});
    const dir = skillDir({ 'SKILL.md': 'x', 'references/in.md': '' });
    const outside = temp.make('hmcp-skill-outside-');
    writeFileSync(join(outside, 'secret.md'), 's');
    symlinkSync(join(outside, 'secret.md'), join(dir, 'references', 'leak.md'));
    symlinkSync(join(dir, 'references', 'in.md'), join(dir, 'references', 'alias.md'));
    assert.deepEqual(await linkedFiles(dir, dir, loadLimits({}, {})), { references: ['references/alias.md', 'references/in.md'] });
  });

  test('a support dir that is a symlink out of the skill is skipped', async () => {
    const dir = skillDir({ 'SKILL.md': 'x' });
    const outside = temp.make('hmcp-skill-outside-');
    writeFileSync(join(outside, 'r.md'), 'r');
    symlinkSync(outside, join(dir, 'references'));
    assert.deepEqual(await linkedFiles(dir, dir, loadLimits({}, {})), {});
  });
});

describe('serveSkillFile', () => {
  test('a text file: its content and type; the served path since 0.21', async () => {
    const dir = skillDir({ 'SKILL.md': 'x', 'references/api.md': '# API\n' });
    assert.deepEqual(await serveSkillFile(dir, 'references/api.md', 'demo', ctx('0.19.0')), {
      success: true,
      name: 'demo',
      file: 'references/api.md',
      content: '# API\n',
      file_type: '.md',
    });
    const newer = await serveSkillFile(dir, 'references/api.md', 'demo', ctx('0.21.0'));
    assert.equal(newer._source_path, join(dir, 'references/api.md'));
  });

  test('a leading byte order mark is kept before 0.22 and dropped since', async () => {
    const dir = skillDir({ 'SKILL.md': 'x', 'n.md': Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('hi')]) });
    assert.equal((await serveSkillFile(dir, 'n.md', 'demo', ctx('0.21.0'))).content, '\ufeffhi');
    assert.equal((await serveSkillFile(dir, 'n.md', 'demo', ctx('0.22.2'))).content, 'hi');
  });

  test('a binary file (a NUL, or not UTF-8) is described, not shown', async () => {
    const dir = skillDir({ 'SKILL.md': 'x', 'assets/a.bin': Buffer.from([1, 0, 2]), 'assets/b.txt': Buffer.from([0xff, 0xfe, 0x41]) });
    assert.deepEqual(await serveSkillFile(dir, 'assets/a.bin', 'demo', ctx(undefined)), {
      success: true,
      name: 'demo',
      file: 'assets/a.bin',
      is_binary: true,
      content: '[Binary file: a.bin, size: 3 bytes]',
    });
    assert.equal((await serveSkillFile(dir, 'assets/b.txt', 'demo', ctx(undefined))).is_binary, true);
  });

  test('traversal, NUL and absolute paths are SKILL_PATH_INVALID', async () => {
    const dir = skillDir({ 'SKILL.md': 'x' });
    await assert.rejects(serveSkillFile(dir, '../x', 'demo', ctx(undefined)), refused('SKILL_PATH_INVALID', (m) => assert.equal(m, "Path traversal ('..') is not allowed.")));
    await assert.rejects(serveSkillFile(dir, 'a\0b', 'demo', ctx(undefined)), refused('SKILL_PATH_INVALID'));
    await assert.rejects(
      serveSkillFile(dir, '/etc/passwd', 'demo', ctx(undefined)),
      refused('SKILL_PATH_INVALID', (m) => assert.equal(m, 'file_path must be relative to the skill directory, got "/etc/passwd"')),
    );
  });

  test('symlinks out of the skill, resolving or dangling, are SKILL_PATH_INVALID', async () => {
    const dir = skillDir({ 'SKILL.md': 'x' });
    const outside = temp.make('hmcp-skill-outside-');
    writeFileSync(join(outside, 'secret'), 's');
    symlinkSync(join(outside, 'secret'), join(dir, 'out'));
    symlinkSync(join(outside, 'gone'), join(dir, 'dangling'));
    await assert.rejects(serveSkillFile(dir, 'out', 'demo', ctx(undefined)), refused('SKILL_PATH_INVALID', (m) => assert.equal(m, 'file_path "out" resolves outside the skill directory.')));
    await assert.rejects(
      serveSkillFile(dir, 'dangling', 'demo', ctx(undefined)),
      refused('SKILL_PATH_INVALID', (m) => assert.equal(m, 'file_path "dangling" is a symlink that does not resolve inside the skill directory.')),
    );
  });

  test('a missing file is SKILL_NOT_FOUND with the files there are, grouped', async () => {
    const dir = skillDir({ 'SKILL.md': 'x', 'references/a.md': '', 'helper.py': '', 'notes.txt': '', '.hidden/x.md': '', 'scripts/s.sh': '' });
    await assert.rejects(
      serveSkillFile(dir, 'references/none.md', 'demo', ctx(undefined)),
      refused('SKILL_NOT_FOUND', (m, d) => {
        assert.equal(m, "File 'references/none.md' not found in skill 'demo'.");
        assert.deepEqual(d.available_files, { references: ['references/a.md'], scripts: ['scripts/s.sh'], other: ['helper.py'] });
      }),
    );
    // A directory is no file either.
    await assert.rejects(serveSkillFile(dir, 'references', 'demo', ctx(undefined)), refused('SKILL_NOT_FOUND'));
  });

  test('a file above skillViewMaxBytes is SKILL_FILE_TOO_LARGE and not read', async () => {
    const dir = skillDir({ 'SKILL.md': 'x', 'big.md': 'y'.repeat(64) });
    await assert.rejects(
      serveSkillFile(dir, 'big.md', 'demo', ctx(undefined, { skillViewMaxBytes: 16 })),
      refused('SKILL_FILE_TOO_LARGE', (m, d) => {
        assert.match(m, /^File 'big\.md' in skill 'demo' is 64 bytes, above .*16.*; it was not read\.$/);
        assert.deepEqual(d, { success: false, reason: 'too_large', bytes: 64 });
      }),
    );
  });
});
