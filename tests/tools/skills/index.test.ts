import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import * as os from 'node:os';
import { join } from 'node:path';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { after, before, describe, mock, test } from 'node:test';
import { ErrorCode, GatewayError } from '../../../shared/errors.js';
import { loadLimits, type Limits } from '../../../shared/limits.js';
import type { CallContext, ToolDefinition } from '../../../supervisor/core/tool-types.js';
import { compileArgumentValidator } from '../../../supervisor/core/catalog/catalog.js';
import { HermesRelease } from '../../../supervisor/platform/hermes/release.js';
import { skillsTools, type SkillsConfig } from '../../../supervisor/tools/skills/index.js';

// The CommonJS face of node:fs/promises: patching it plus syncBuiltinESMExports() reaches the
// `open` that skills.ts imported.
const fsp = createRequire(import.meta.url)('node:fs/promises') as typeof import('node:fs/promises');

const ctx: CallContext = { owner: { id: 'request:t', kind: 'request' }, signal: new AbortController().signal, callId: 't', era: 'modern', callNested: () => Promise.reject(new Error('nested calls are not part of this test')) };

let base: string;
let counter = 0;

before(() => {
  base = fs.mkdtempSync(join(os.tmpdir(), 'skills-test-'));
});
after(() => {
  fs.rmSync(base, { recursive: true, force: true });
});

interface Fixture {
  home: string;
  skills: string;
  list: ToolDefinition;
  view: ToolDefinition;
}

/**
 * A fresh HERMES_HOME; `files` maps paths relative to `skills/` (or `~/` for HERMES_HOME) to content.
 * `host` is what the gateway read from its environment (default: nothing set). `hermes`: the Hermes
 * version the tools follow, as HERMES_MCP_HERMES_VERSION states it (a test of 0.19's behaviour
 * passes '0.19.0'); the newest the gateway knows when absent.
 */
function fixture(files: Record<string, string | Buffer> = {}, limits: Partial<Limits> = {}, createSkillsDir = true, host: Partial<SkillsConfig> = {}, hermes?: string): Fixture {
  const home = join(base, `case-${++counter}`);
  const skills = join(home, 'skills');
  fs.mkdirSync(createSkillsDir ? skills : home, { recursive: true });
  for (const [rel, content] of Object.entries(files)) {
    const path = rel.startsWith('~/') ? join(home, rel.slice(2)) : join(skills, rel);
    fs.mkdirSync(join(path, '..'), { recursive: true });
    fs.writeFileSync(path, content);
  }
  const config: SkillsConfig = { hermesHome: home, limits: loadLimits({}, limits), kanbanContext: false, inheritedEnvironment: {}, ...host };
  const [list, view] = skillsTools(config, new HermesRelease(hermes));
  return { home, skills, list: list!, view: view! };
}

function skill(name: string | null, description: string | null, body = 'Body text.\n', extra = ''): string {
  const lines = ['---'];
  if (name !== null) lines.push(`name: ${name}`);
  if (description !== null) lines.push(`description: ${JSON.stringify(description)}`);
  if (extra) lines.push(extra);
  lines.push('---', body);
  return lines.join('\n');
}

/** The parts of Hermes' skills_list result these tests read; assertions check the values. */
interface ListedSkill {
  name: string;
  description: string;
  category: string | null;
}
interface SkillsListResult {
  success: boolean;
  skills: ListedSkill[];
  categories: string[];
  count: number;
  message: string;
  warning: string;
  truncated?: boolean;
}

/** The parts of Hermes' skill_view result these tests read; assertions check the values. */
interface SkillViewResult {
  success: boolean;
  name: string;
  description: string;
  content: string;
  path: string;
  skill_dir: string;
  tags: string[];
  related_skills: string[];
  linked_files: Record<string, string[]> | null;
  usage_hint: unknown;
  readiness_status: string;
  required_environment_variables: Array<{ name: string }>;
  missing_required_environment_variables: string[];
  setup_needed: boolean;
  setup_help: string;
}

async function list(f: Fixture, args: Record<string, unknown> = {}): Promise<SkillsListResult> {
  return (await f.list.handler(args, ctx)).structured as unknown as SkillsListResult;
}

async function view(f: Fixture, args: Record<string, unknown>): Promise<SkillViewResult> {
  return (await f.view.handler(args, ctx)).structured as unknown as SkillViewResult;
}

/**
 * Runs `fn` while every fs/promises open() of a path ending in `suffix` fails with EIO (root can
 * open a chmod 000 file, so permissions cannot stand in for an unreadable file here).
 */
async function withFailingOpen<T>(suffix: string, fn: () => Promise<T>): Promise<T> {
  const real = fsp.open;
  const failing = mock.method(fsp, 'open', (path: fs.PathLike, ...rest: unknown[]) => {
    if (String(path).endsWith(suffix)) {
      return Promise.reject(Object.assign(new Error(`EIO: i/o error, open '${String(path)}'`), { code: 'EIO' }));
    }
    return (real as (...a: unknown[]) => Promise<FileHandle>)(path, ...rest);
  });
  syncBuiltinESMExports();
  try {
    return await fn();
  } finally {
    failing.mock.restore();
    syncBuiltinESMExports();
  }
}

async function expectCode(promise: Promise<unknown>, code: ErrorCode): Promise<GatewayError> {
  try {
    await promise;
  } catch (e) {
    assert.ok(e instanceof GatewayError, `expected GatewayError, got ${String(e)}`);
    assert.equal(e.code, code, e.message);
    return e;
  }
  assert.fail(`expected ${code}, but the call succeeded`);
}

describe('skills_list', () => {
  test('lists flat and categorised skills with Hermes result shape', async () => {
    const f = fixture({
      'flat/SKILL.md': skill('flat', 'A flat skill'),
      'devops/deploy/SKILL.md': skill('deploy', 'Ship it'),
    });
    const r = await list(f);
    assert.deepEqual(r, {
      success: true,
      skills: [
        { name: 'flat', description: 'A flat skill', category: null },
        { name: 'deploy', description: 'Ship it', category: 'devops' },
      ],
      categories: ['devops'],
      count: 2,
      hint: 'Use skill_view(name) to see full content, tags, and linked files',
    });
  });

  test('sorts by (category or "", name)', async () => {
    const f = fixture({
      'zeta/SKILL.md': skill('zeta', 'z'),
      'alpha/SKILL.md': skill('alpha', 'a'),
      'web/crawl/SKILL.md': skill('crawl', 'c'),
      'ai/train/SKILL.md': skill('train', 't'),
      'ai/eval/SKILL.md': skill('eval', 'e'),
    });
    const r = await list(f);
    assert.deepEqual(
      r.skills.map((s) => `${s.category ?? ''}/${s.name}`),
      ['/alpha', '/zeta', 'ai/eval', 'ai/train', 'web/crawl'],
    );
    assert.deepEqual(r.categories, ['ai', 'web']);
  });

  test('category filter is an exact match', async () => {
    const f = fixture({
      'flat/SKILL.md': skill('flat', 'f'),
      'ai/train/SKILL.md': skill('train', 't'),
      'aix/other/SKILL.md': skill('other', 'o'),
    });
    const r = await list(f, { category: 'ai' });
    assert.deepEqual(r.skills, [{ name: 'train', description: 't', category: 'ai' }]);
    assert.deepEqual(r.categories, ['ai']);
    assert.equal(r.count, 1);
  });

  test('description falls back to the first non-heading body line', async () => {
    const f = fixture({ 'nodesc/SKILL.md': skill(null, null, '# Title\n\n## Sub\n\n  First real line.  \nSecond line.\n') });
    const r = await list(f);
    assert.deepEqual(r.skills, [{ name: 'nodesc', description: 'First real line.', category: null }]);
  });

  test('long descriptions are cut to 1024 characters with "..." and names to 64', async () => {
    const f = fixture({ 'long/SKILL.md': skill('n'.repeat(80), 'd'.repeat(2000)) });
    const [s] = (await list(f)).skills;
    assert.ok(s);
    assert.equal(s.name, 'n'.repeat(64));
    assert.equal(s.description.length, 1024);
    assert.ok(s.description.endsWith('d...'));
  });

  test('skills disabled in config.yaml are hidden', async () => {
    const f = fixture({
      'keep/SKILL.md': skill('keep', 'k'),
      'gone/SKILL.md': skill('gone', 'g'),
      '~/config.yaml': 'model: x\nskills:\n  disabled: [gone]\n',
    });
    assert.deepEqual((await list(f)).skills.map((s) => s.name), ['keep']);
  });

  test('a broken config.yaml is ignored for skills.disabled', async () => {
    const f = fixture({
      'keep/SKILL.md': skill('keep', 'k'),
      'gone/SKILL.md': skill('gone', 'g'),
      '~/config.yaml': 'skills:\n  disabled: [gone\n  : : :\n\t- broken',
    });
    assert.deepEqual((await list(f)).skills.map((s) => s.name), ['gone', 'keep']);
  });

  test('excluded directories and skill support directories are not scanned', async () => {
    const f = fixture({
      'real/SKILL.md': skill('real', 'r'),
      '.git/hooks/SKILL.md': skill('in-git', 'x'),
      'node_modules/pkg/SKILL.md': skill('in-node-modules', 'x'),
      '.hub/cache/SKILL.md': skill('in-hub', 'x'),
      'real/references/archived/SKILL.md': skill('archived', 'x'),
      // `scripts` as a category name (not inside a skill root) stays discoverable.
      'scripts/tool/SKILL.md': skill('tool', 't'),
    });
    assert.deepEqual((await list(f)).skills.map((s) => s.name), ['real', 'tool']);
  });

  test('a missing skills directory is reported, not created', async () => {
    const f = fixture({}, {}, false);
    const r = await list(f);
    assert.equal(r.success, true);
    assert.deepEqual(r.skills, []);
    assert.deepEqual(r.categories, []);
    assert.match(r.message, /does not exist/);
    assert.equal(fs.existsSync(f.skills), false);
  });

  test('only the first skillListReadChars characters of SKILL.md are read', async () => {
    // The closing fence lies beyond the read budget, so no frontmatter is seen: the dir name wins.
    const f = fixture({ 'dirname/SKILL.md': `---\nname: fm-name\ndescription: "${'x'.repeat(200)}"\n---\nBody line.\n` }, { skillListReadChars: 100 });
    const [s] = (await list(f)).skills;
    assert.ok(s);
    assert.equal(s.name, 'dirname');
  });

  test('the walk stops after skillsMaxFiles entries and says so', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 10; i++) files[`s${i}/SKILL.md`] = skill(`s${i}`, 'd');
    const f = fixture(files, { skillsMaxFiles: 5 });
    const r = await list(f);
    assert.equal(r.truncated, true);
    assert.match(r.warning, /skillsMaxFiles=5/);
    assert.ok(r.skills.length < 10);
  });

  test('a symlink leading out of the skills directory is not followed', async () => {
    const f = fixture({ 'inside/SKILL.md': skill('inside', 'i'), '~/outside/escaped/SKILL.md': skill('escaped', 'e') });
    fs.symlinkSync(join(f.home, 'outside', 'escaped'), join(f.skills, 'escaped'));
    fs.symlinkSync(join(f.skills, 'inside'), join(f.skills, 'alias-inside'));
    const r = await list(f);
    assert.deepEqual(r.skills.map((s) => s.name), ['inside']);
    await expectCode(view(f, { name: 'escaped' }), ErrorCode.SKILL_NOT_FOUND);
  });

  test('a symlink cycle inside the skills directory is walked once', async () => {
    // Without cycle detection the walk would only stop at the kernel's symlink-depth limit (ELOOP
    // after ~40 hops, i.e. >100 entries here) or at the entry budget.
    const f = fixture({ 'inside/SKILL.md': skill('inside', 'i') }, { skillsMaxFiles: 50 });
    fs.symlinkSync(f.skills, join(f.skills, 'inside', 'loop'));
    const r = await list(f);
    assert.deepEqual(r.skills.map((s) => s.name), ['inside']);
    assert.equal(r.truncated, undefined);
  });

  test('schemas are closed and annotations read-only', () => {
    const f = fixture();
    assert.deepEqual(f.list.inputSchema, { type: 'object', properties: { category: { type: 'string', description: 'Optional category filter to narrow results' } }, additionalProperties: false });
    for (const tool of [f.list, f.view]) {
      assert.equal(tool.inputSchema.additionalProperties, false);
      assert.equal(tool.annotations.readOnlyHint, true);
      assert.equal(tool.annotations.destructiveHint, false);
      assert.equal(tool.annotations.openWorldHint, false);
    }
    assert.throws(() => compileArgumentValidator(f.list)({ path: '/etc' }), GatewayError);
    assert.throws(() => compileArgumentValidator(f.view)({}), GatewayError);
  });
});

describe('skill_view', () => {
  const tree = () =>
    fixture({
      'flat/SKILL.md': skill('flat', 'A flat skill', 'Flat body.\n', 'metadata:\n  hermes:\n    tags: [a, b]\n    related_skills: [deploy]'),
      'devops/deploy/SKILL.md': skill('deploy', 'Ship it', 'Deploy body.\n', 'tags: "x, y"'),
      'devops/deploy/references/api.md': '# API\n',
      'devops/deploy/scripts/run.sh': 'echo hi\n',
      'devops/deploy/assets/logo.bin': Buffer.from([0, 1, 2, 0xff]),
      'ai/dirname/SKILL.md': skill('pretty-name', 'Frontmatter named'),
    });

  test('resolves a bare name', async () => {
    const f = tree();
    const r = await view(f, { name: 'flat' });
    assert.equal(r.success, true);
    assert.equal(r.name, 'flat');
    assert.equal(r.description, 'A flat skill');
    assert.deepEqual(r.tags, ['a', 'b']);
    assert.deepEqual(r.related_skills, ['deploy']);
    assert.match(r.content, /Flat body\./);
    assert.equal(r.path, 'flat/SKILL.md');
    assert.equal(r.skill_dir, join(f.skills, 'flat'));
    assert.equal(r.linked_files, null);
    assert.equal(r.readiness_status, 'available');
  });

  test('resolves a category/name path and lists linked files', async () => {
    const f = tree();
    const r = await view(f, { name: 'devops/deploy' });
    assert.equal(r.name, 'deploy');
    assert.equal(r.path, 'devops/deploy/SKILL.md');
    assert.deepEqual(r.tags, ['x', 'y']);
    assert.deepEqual(r.linked_files, { references: ['references/api.md'], assets: ['assets/logo.bin'], scripts: ['scripts/run.sh'] });
    assert.equal(typeof r.usage_hint, 'string');
  });

  test('resolves a frontmatter name that differs from the directory name', async () => {
    const f = tree();
    const r = await view(f, { name: 'pretty-name' });
    assert.equal(r.name, 'pretty-name');
    assert.equal(r.path, 'ai/dirname/SKILL.md');
  });

  test('an ambiguous name is refused with the matches and their load names', async () => {
    const f = fixture({ 'a/dup/SKILL.md': skill('dup', '1'), 'b/dup/SKILL.md': skill('dup', '2') });
    const e = await expectCode(view(f, { name: 'dup' }), ErrorCode.SKILL_AMBIGUOUS);
    assert.equal(e.message, "Ambiguous skill name 'dup': use one of a/dup, b/dup. 2 different skills share this name in the same skills directory tier; refusing to guess.");
    assert.deepEqual(e.details?.matches, [join(f.skills, 'a', 'dup', 'SKILL.md'), join(f.skills, 'b', 'dup', 'SKILL.md')]);
    assert.deepEqual(e.details?.load_names, ['a/dup', 'b/dup']);
    // The load name loads it.
    assert.equal((await view(f, { name: 'b/dup' })).description, '2');
  });

  test('Hermes 0.19: an ambiguous name is refused with the matches', async () => {
    const f = fixture({ 'a/dup/SKILL.md': skill('dup', '1'), 'b/dup/SKILL.md': skill('dup', '2') }, {}, true, {}, '0.19.0');
    const e = await expectCode(view(f, { name: 'dup' }), ErrorCode.SKILL_AMBIGUOUS);
    assert.match(e.message, /^Ambiguous skill name 'dup': 2 skills match across your local skills dir and external_dirs\./);
    assert.deepEqual(e.details?.matches, [join(f.skills, 'a', 'dup', 'SKILL.md'), join(f.skills, 'b', 'dup', 'SKILL.md')]);
    assert.equal(e.details?.load_names, undefined);
    // The categorized path disambiguates.
    assert.equal((await view(f, { name: 'b/dup' })).description, '2');
  });

  test('an unknown name is refused with available_skills (at most 20, sorted)', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 25; i++) files[`s${String(i).padStart(2, '0')}/SKILL.md`] = skill(`s${String(i).padStart(2, '0')}`, 'd');
    const f = fixture(files);
    const e = await expectCode(view(f, { name: 'nope' }), ErrorCode.SKILL_NOT_FOUND);
    const available = e.details?.available_skills as string[];
    assert.equal(available.length, 20);
    assert.equal(available[0], 's00');
    assert.equal(available[19], 's19');
  });

  test('a disabled skill cannot be viewed', async () => {
    const f = fixture({ 'gone/SKILL.md': skill('gone', 'g'), '~/config.yaml': 'skills:\n  disabled: gone\n' });
    const e = await expectCode(view(f, { name: 'gone' }), ErrorCode.SKILL_DISABLED);
    assert.match(e.message, /disabled/);
  });

  test('a skill for another platform cannot be viewed', async () => {
    const other = process.platform === 'win32' ? 'linux' : 'windows';
    const f = fixture({ 'elsewhere/SKILL.md': skill('elsewhere', 'e', 'b\n', `platforms: [${other}]`) });
    const e = await expectCode(view(f, { name: 'elsewhere' }), ErrorCode.SKILL_UNSUPPORTED);
    assert.match(e.message, /not supported on this platform/);
  });

  test('a SKILL.md above skillViewMaxBytes is refused without being read', async () => {
    const f = fixture({ 'big/SKILL.md': skill('big', 'b', 'x'.repeat(5000)) }, { skillViewMaxBytes: 1000 });
    const e = await expectCode(view(f, { name: 'big' }), ErrorCode.SKILL_FILE_TOO_LARGE);
    assert.match(e.message, /big\/SKILL\.md is \d+ bytes.*skillViewMaxBytes=1000/);
  });

  test('a SKILL.md that cannot be read is SKILL_READ_FAILED, with the cause', async () => {
    const f = fixture({ 'broken/SKILL.md': skill('broken', 'b') });
    const e = await withFailingOpen('broken/SKILL.md', () => expectCode(view(f, { name: 'broken' }), ErrorCode.SKILL_READ_FAILED));
    assert.match(e.message, /broken/);
    assert.match(e.message, /EIO/);
  });

  test('a linked file that cannot be read is SKILL_READ_FAILED', async () => {
    const f = fixture({ 'deploy/SKILL.md': skill('deploy', 'd'), 'deploy/references/api.md': '# API\n' });
    const e = await withFailingOpen('references/api.md', () =>
      expectCode(view(f, { name: 'deploy', file_path: 'references/api.md' }), ErrorCode.SKILL_READ_FAILED),
    );
    assert.match(e.message, /references\/api\.md/);
    assert.match(e.message, /EIO/);
  });

  test('file_path serves a file inside the skill directory, naming the file served', async () => {
    const f = tree();
    const r = await view(f, { name: 'deploy', file_path: 'references/api.md' });
    const served = join(f.skills, 'devops', 'deploy', 'references', 'api.md');
    assert.deepEqual(r, { success: true, name: 'deploy', file: 'references/api.md', content: '# API\n', file_type: '.md', _source_path: served });
    assert.equal((await view(f, { name: 'deploy' }) as unknown as Record<string, unknown>)._source_path, join(f.skills, 'devops', 'deploy', 'SKILL.md'));
  });

  test('Hermes 0.19: file_path serves a file inside the skill directory, without _source_path', async () => {
    const f = fixture({ 'devops/deploy/SKILL.md': skill('deploy', 'Ship it'), 'devops/deploy/references/api.md': '# API\n' }, {}, true, {}, '0.19.0');
    const r = await view(f, { name: 'deploy', file_path: 'references/api.md' });
    assert.deepEqual(r, { success: true, name: 'deploy', file: 'references/api.md', content: '# API\n', file_type: '.md' });
    assert.equal('_source_path' in (await view(f, { name: 'deploy' })), false);
  });

  test('file_path reports a binary file as Hermes does', async () => {
    const f = tree();
    const r = await view(f, { name: 'deploy', file_path: 'assets/logo.bin' });
    assert.deepEqual(r, { success: true, name: 'deploy', file: 'assets/logo.bin', is_binary: true, content: '[Binary file: logo.bin, size: 4 bytes]' });
  });

  test('file_path traversal, absolute paths and drive letters are refused', async () => {
    const f = tree();
    for (const file_path of ['../../flat/SKILL.md', 'references/../../flat/SKILL.md', '/etc/passwd', 'C:\\Windows\\win.ini', '..\\x']) {
      await expectCode(view(f, { name: 'deploy', file_path }), ErrorCode.SKILL_PATH_INVALID);
    }
  });

  test('a name with traversal or an absolute path is refused', async () => {
    const f = tree();
    for (const name of ['../flat', '/etc', 'devops/../../x', 'C:foo']) {
      await expectCode(view(f, { name }), ErrorCode.SKILL_PATH_INVALID);
    }
  });

  test('a symlink escaping the skill directory is refused', async () => {
    const f = fixture({ 'leaky/SKILL.md': skill('leaky', 'l'), '~/secret.txt': 'TOP SECRET\n', 'other/SKILL.md': skill('other', 'o') });
    fs.mkdirSync(join(f.skills, 'leaky', 'references'));
    fs.symlinkSync(join(f.home, 'secret.txt'), join(f.skills, 'leaky', 'references', 'leak.md'));
    fs.symlinkSync(join(f.skills, 'other', 'SKILL.md'), join(f.skills, 'leaky', 'references', 'sibling.md'));
    const e = await expectCode(view(f, { name: 'leaky', file_path: 'references/leak.md' }), ErrorCode.SKILL_PATH_INVALID);
    assert.doesNotMatch(e.message, /TOP SECRET/);
    // Even inside the skills directory, a linked file must stay inside its own skill.
    await expectCode(view(f, { name: 'leaky', file_path: 'references/sibling.md' }), ErrorCode.SKILL_PATH_INVALID);
    // And neither shows up in linked_files.
    assert.equal((await view(f, { name: 'leaky' })).linked_files, null);
  });

  test('a missing file lists the available files', async () => {
    const f = tree();
    const e = await expectCode(view(f, { name: 'deploy', file_path: 'references/nope.md' }), ErrorCode.SKILL_NOT_FOUND);
    assert.deepEqual(e.details?.available_files, { references: ['references/api.md'], assets: ['assets/logo.bin'], scripts: ['scripts/run.sh'] });
  });

  test('a file above skillViewMaxBytes is refused without being read', async () => {
    const f = fixture({ 'big/SKILL.md': skill('big', 'b'), 'big/references/huge.md': 'x'.repeat(5000) }, { skillViewMaxBytes: 1000 });
    const e = await expectCode(view(f, { name: 'big', file_path: 'references/huge.md' }), ErrorCode.SKILL_FILE_TOO_LARGE);
    assert.match(e.message, /5000 bytes.*skillViewMaxBytes=1000/);
  });

  test("required environment variables are checked against the gateway's environment", async () => {
    const present = 'SKILLS_TEST_PRESENT_VAR';
    const absent = 'SKILLS_TEST_ABSENT_VAR';
    const f = fixture(
      {
        'envy/SKILL.md': skill('envy', 'e', 'b\n', `required_environment_variables:\n  - ${present}\n  - name: ${absent}\n    help: https://example.test/key\n  - name: OPTIONAL_ONE\n    optional: true`),
      },
      {},
      true,
      { inheritedEnvironment: { [present]: '1' } },
    );
    const r = await view(f, { name: 'envy' });
    assert.deepEqual(r.required_environment_variables.map((e) => e.name), [present, absent, 'OPTIONAL_ONE']);
    assert.deepEqual(r.missing_required_environment_variables, [absent]);
    assert.equal(r.setup_needed, true);
    assert.equal(r.readiness_status, 'setup_needed');
    assert.equal(r.setup_help, 'https://example.test/key');
  });

  test('viewing has no side effects on the skills tree', async () => {
    const f = tree();
    const snapshot = () => fs.readdirSync(f.home, { recursive: true }).map(String).sort();
    const before = snapshot();
    await view(f, { name: 'deploy' });
    await view(f, { name: 'deploy', file_path: 'references/api.md' });
    await list(f);
    assert.deepEqual(snapshot(), before);
  });
});

// What Hermes changed after 0.19 (SKILLS_CHANGES), each with its 0.19 counterpart.
describe('following the Hermes the gateway fronts', () => {
  const twins = (hermes?: string, config = '') =>
    fixture(
      {
        'alpha/twin/SKILL.md': skill('twin', 'First twin.'),
        'beta/twin/SKILL.md': skill('twin', 'Second twin.'),
        ...(config ? { '~/config.yaml': config } : {}),
      },
      {},
      true,
      {},
      hermes,
    );

  test('same-name skills are each listed by their load name; not-found lists load names', async () => {
    const f = twins();
    assert.deepEqual((await list(f)).skills.map((s) => [s.name, s.category]), [['alpha/twin', 'alpha'], ['beta/twin', 'beta']]);
    const e = await expectCode(view(f, { name: 'nope' }), ErrorCode.SKILL_NOT_FOUND);
    assert.deepEqual(e.details?.available_skills, ['alpha/twin', 'beta/twin']);
  });

  test('Hermes 0.19: the first skill of a name is listed', async () => {
    const f = twins('0.19.0');
    assert.deepEqual((await list(f)).skills.map((s) => [s.name, s.category]), [['twin', 'alpha']]);
    const e = await expectCode(view(f, { name: 'nope' }), ErrorCode.SKILL_NOT_FOUND);
    assert.deepEqual(e.details?.available_skills, ['twin']);
  });

  test('skills.disabled also matches a load name, for the list and for a view', async () => {
    const f = twins(undefined, 'skills:\n  disabled: [beta/twin]\n');
    assert.deepEqual((await list(f)).skills.map((s) => s.name), ['alpha/twin']);
    await expectCode(view(f, { name: 'beta/twin' }), ErrorCode.SKILL_DISABLED);
    assert.equal((await view(f, { name: 'alpha/twin' })).description, 'First twin.');
    const old = twins('0.19.0', 'skills:\n  disabled: [beta/twin]\n');
    assert.equal((await view(old, { name: 'beta/twin' })).description, 'Second twin.');
  });

  test('byte-identical copies resolve to the shallowest (0.19: refused as ambiguous)', async () => {
    const same = skill('same', 'One skill, two copies.');
    const files = { 'copies/same/SKILL.md': same, 'copies/deeper/x/same/SKILL.md': same };
    const f = fixture(files);
    assert.deepEqual((await list(f)).skills.map((s) => s.name), ['same']);
    assert.equal((await view(f, { name: 'same' })).path, 'copies/same/SKILL.md');
    const old = fixture(files, {}, true, {}, '0.19.0');
    await expectCode(view(old, { name: 'same' }), ErrorCode.SKILL_AMBIGUOUS);
    // Copies that differ stay ambiguous.
    const differ = fixture({ 'copies/same/SKILL.md': same, 'copies/deeper/x/same/SKILL.md': skill('same', 'Another.') });
    assert.deepEqual((await list(differ)).skills.map((s) => s.name).sort(), ['copies/deeper/x/same', 'copies/same']);
    await expectCode(view(differ, { name: 'same' }), ErrorCode.SKILL_AMBIGUOUS);
  });

  test("a declared name that is another skill's directory name is listed by its path", async () => {
    const files = { 'x/alias-dir/SKILL.md': skill('alias-owner', 'a'), 'y/alias-owner/SKILL.md': skill('other-name', 'o') };
    assert.deepEqual((await list(fixture(files))).skills.map((s) => s.name), ['x/alias-dir', 'other-name']);
    assert.deepEqual((await list(fixture(files, {}, true, {}, '0.19.0'))).skills.map((s) => s.name), ['alias-owner', 'other-name']);
  });

  test('a Markdown file inside a directory skill is not a flat skill (0.19: it is)', async () => {
    const files = { 'pkg/SKILL.md': skill('pkg', 'p'), 'pkg/extra.md': '# extra\n', 'legacy.md': '# Legacy\n' };
    await expectCode(view(fixture(files), { name: 'extra' }), ErrorCode.SKILL_NOT_FOUND);
    assert.equal((await view(fixture(files), { name: 'legacy' })).path, 'legacy.md');
    assert.equal((await view(fixture(files, {}, true, {}, '0.19.0'), { name: 'extra' })).path, 'pkg/extra.md');
  });

  test('a leading byte order mark is dropped from content (0.19: kept)', async () => {
    const files = { 'bom/SKILL.md': '\ufeff' + skill('bom', 'b'), 'bom/references/r.md': '\ufeff# R\n' };
    const f = fixture(files);
    assert.ok((await view(f, { name: 'bom' })).content.startsWith('---'));
    assert.equal((await view(f, { name: 'bom', file_path: 'references/r.md' })).content, '# R\n');
    const old = fixture(files, {}, true, {}, '0.19.0');
    assert.ok((await view(old, { name: 'bom' })).content.startsWith('\ufeff---'));
    assert.equal((await view(old, { name: 'bom', file_path: 'references/r.md' })).content, '\ufeff# R\n');
  });

  test('.curator_backups and .locks are not scanned (0.19: they are)', async () => {
    const files = { '.curator_backups/old/SKILL.md': skill('backup', 'b'), '.locks/l/SKILL.md': skill('locked', 'l'), 'kept/SKILL.md': skill('kept', 'k') };
    assert.deepEqual((await list(fixture(files))).skills.map((s) => s.name), ['kept']);
    await expectCode(view(fixture(files), { name: 'backup' }), ErrorCode.SKILL_NOT_FOUND);
    assert.deepEqual((await list(fixture(files, {}, true, {}, '0.19.0'))).skills.map((s) => s.name).sort(), ['backup', 'kept', 'locked']);
  });

  test('skills.disabled never hides hermes-agent from the list, and still refuses its view (0.19: hidden)', async () => {
    const files = { 'hermes-agent/SKILL.md': skill('hermes-agent', 'Manual'), '~/config.yaml': 'skills:\n  disabled: [hermes-agent]\n' };
    assert.deepEqual((await list(fixture(files))).skills.map((s) => s.name), ['hermes-agent']);
    await expectCode(view(fixture(files), { name: 'hermes-agent' }), ErrorCode.SKILL_DISABLED);
    assert.deepEqual((await list(fixture(files, {}, true, {}, '0.19.0'))).skills, []);
  });

  test('every view returns the whole skill: no repeat-view stub', async () => {
    const f = fixture({ 'plain/SKILL.md': skill('plain', 'p', 'Body.\n') });
    const first = await view(f, { name: 'plain' });
    assert.deepEqual(await view(f, { name: 'plain' }), first);
    assert.match(first.content, /Body\./);
  });
});
