import assert from 'node:assert/strict';
import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, test } from 'node:test';
import { loadLimits } from '../../../../shared/limits.js';
import { HermesRelease } from '../../../../supervisor/platform/hermes/release.js';
import type { SkillsContext, SkillsRoot } from '../../../../supervisor/tools/skills/common.js';
import type { Frontmatter } from '../../../../supervisor/tools/skills/frontmatter.js';
import { skillAnswer } from '../../../../supervisor/tools/skills/view/answer.js';
import { tempDirs } from '../../../helpers/temp.js';

// skill_view's answer for a SKILL.md: Hermes' shape and its setup readiness, on a real HERMES_HOME.

const temp = tempDirs();
after(() => temp.removeAll());

function home(files: Record<string, string>, env: Record<string, string> = {}, version?: string) {
  const dir = realpathSync(temp.make('hmcp-skill-answer-'));
  for (const [rel, body] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), body);
  }
  const root: SkillsRoot = { dir: join(dir, 'skills'), real: join(dir, 'skills') };
  const ctx: SkillsContext = { hermesHome: dir, limits: loadLimits({}, {}), kanbanContext: false, inheritedEnvironment: env, release: new HermesRelease(version) };
  return { dir, root, ctx };
}

test('a skill without setup: available, its tags, related skills and linked files', async () => {
  const { root, ctx } = home({ 'skills/cat/demo/SKILL.md': 'x', 'skills/cat/demo/references/r.md': '' }, {}, '0.19.0');
  const skillDir = join(root.dir, 'cat/demo');
  const fm: Frontmatter = { name: 'demo', description: 'Does it', tags: '[a, b]', metadata: { hermes: { related_skills: ['other'] } } };
  const out = await skillAnswer(ctx, root, { skillDir, md: join(skillDir, 'SKILL.md'), real: join(skillDir, 'SKILL.md') }, 'BODY', fm);
  assert.deepEqual(out, {
    success: true,
    name: 'demo',
    description: 'Does it',
    tags: ['a', 'b'],
    related_skills: ['other'],
    content: 'BODY',
    path: 'cat/demo/SKILL.md',
    skill_dir: skillDir,
    linked_files: { references: ['references/r.md'] },
    usage_hint: "To view linked files, call skill_view(name, file_path) where file_path is e.g. 'references/api.md' or 'assets/config.yaml'",
    required_environment_variables: [],
    required_commands: [],
    missing_required_environment_variables: [],
    missing_credential_files: [],
    missing_required_commands: [],
    setup_needed: false,
    setup_skipped: false,
    readiness_status: 'available',
    metadata: { hermes: { related_skills: ['other'] } },
  });
});

test('the name falls back to the directory, or a flat file name; no linked files is null; the source path since 0.21', async () => {
  const { root, ctx } = home({ 'skills/tools/SKILL.md': 'x', 'skills/flat.md': 'x' }, {}, '0.21.0');
  const dirSkill = await skillAnswer(ctx, root, { skillDir: join(root.dir, 'tools'), md: join(root.dir, 'tools/SKILL.md'), real: join(root.dir, 'tools/SKILL.md') }, 'c', {});
  assert.equal(dirSkill.name, 'tools');
  assert.equal(dirSkill.description, '');
  assert.equal(dirSkill.linked_files, null);
  assert.equal(dirSkill.usage_hint, null);
  assert.equal(dirSkill._source_path, join(root.dir, 'tools/SKILL.md'));
  const flat = await skillAnswer(ctx, root, { skillDir: null, md: join(root.dir, 'flat.md'), real: join(root.dir, 'flat.md') }, 'c', { compatibility: 'linux' });
  assert.equal(flat.name, 'flat');
  assert.equal(flat.path, 'flat.md');
  assert.equal(flat.skill_dir, null);
  assert.equal(flat.compatibility, 'linux');
  assert.equal('metadata' in flat, false);
});

test('required variables: .env decides for the names it has, the environment for the rest; optional ones never count', async () => {
  const env = ['# comment', 'export SET_IN_DOTENV="yes"', "EMPTY_IN_DOTENV=''", 'not a line'].join('\n');
  const { dir, root, ctx } = home({ '.env': env, 'skills/s/SKILL.md': 'x' }, { EMPTY_IN_DOTENV: 'from-process', FROM_PROCESS: '1' });
  const fm: Frontmatter = {
    name: 's',
    required_environment_variables: [
      'SET_IN_DOTENV',
      'EMPTY_IN_DOTENV',
      'FROM_PROCESS',
      { name: 'MISSING_ONE', help: 'Get it at https://example.test/keys' },
      { name: 'OPTIONAL_ONE', optional: true },
    ],
  };
  const skillDir = join(root.dir, 's');
  const out = await skillAnswer(ctx, root, { skillDir, md: join(skillDir, 'SKILL.md'), real: join(skillDir, 'SKILL.md') }, 'c', fm);
  assert.deepEqual(out.missing_required_environment_variables, ['EMPTY_IN_DOTENV', 'MISSING_ONE']);
  assert.equal(out.setup_needed, true);
  assert.equal(out.readiness_status, 'setup_needed');
  assert.equal(out.setup_help, 'Get it at https://example.test/keys');
  assert.equal(
    out.gateway_setup_hint,
    `Secure secret entry is not available through the MCP gateway. Set EMPTY_IN_DOTENV, MISSING_ONE in the environment the Hermes tools run with (e.g. ${join(dir, '.env')}).`,
  );
  assert.equal(out.setup_note, 'Setup needed before using this skill: missing env $EMPTY_IN_DOTENV, env $MISSING_ONE. Get it at https://example.test/keys');
});

test('credential files: present inside HERMES_HOME counts; missing, absolute or leaving it does not', async () => {
  const { dir, root, ctx } = home({ 'creds/ok.json': '{}', 'skills/s/SKILL.md': 'x' });
  const outside = temp.make('hmcp-skill-outside-');
  writeFileSync(join(outside, 'x.json'), '{}');
  symlinkSync(join(outside, 'x.json'), join(dir, 'creds', 'link.json'));
  const fm: Frontmatter = {
    required_credential_files: ['creds/ok.json', { path: 'creds/missing.json' }, { name: 'creds/link.json' }, join(dir, 'creds/ok.json'), '  ', 'creds'],
  };
  const skillDir = join(root.dir, 's');
  const out = await skillAnswer(ctx, root, { skillDir, md: join(skillDir, 'SKILL.md'), real: join(skillDir, 'SKILL.md') }, 'c', fm);
  assert.deepEqual(out.missing_credential_files, ['creds/missing.json', 'creds/link.json', join(dir, 'creds/ok.json'), 'creds']);
  assert.equal(out.setup_note, `Setup needed before using this skill: missing file creds/missing.json, file creds/link.json, file ${join(dir, 'creds/ok.json')}, file creds.`);
  assert.equal('gateway_setup_hint' in out, false);
});
