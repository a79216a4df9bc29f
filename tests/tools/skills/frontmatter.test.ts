import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { describe, test } from 'node:test';
import { matchesEnvironment, matchesPlatform, parseFrontmatter, parseTags, requiredEnvironmentVariables, truncateDescription } from '../../../supervisor/tools/skills/frontmatter.js';

// SKILL.md frontmatter as Hermes reads it (agent/skill_utils.py, tools/skills_tool.py).

describe('parseFrontmatter', () => {
  test('a fenced YAML mapping and the body after the closing fence; a BOM is dropped', () => {
    assert.deepEqual(parseFrontmatter('\ufeff---\nname: demo\ntags: [a, b]\nn: 3\n---\n# Body\ntext\n'), { frontmatter: { name: 'demo', tags: ['a', 'b'], n: 3 }, body: '# Body\ntext\n' });
    assert.deepEqual(parseFrontmatter('---\nname: x\n---   \nbody'), { frontmatter: { name: 'x' }, body: 'body' }, 'spaces after the closing fence');
  });
  test('no opening fence, or no closing one: no frontmatter, the whole text is the body', () => {
    assert.deepEqual(parseFrontmatter('# Title\n---\nname: x\n---\n'), { frontmatter: {}, body: '# Title\n---\nname: x\n---\n' });
    assert.deepEqual(parseFrontmatter('---\nname: x\nbody'), { frontmatter: {}, body: '---\nname: x\nbody' });
  });
  test('YAML that is not a mapping is no frontmatter; malformed YAML falls back to key: value lines split at the first colon', () => {
    assert.deepEqual(parseFrontmatter('---\n- a\n- b\n---\nB').frontmatter, {});
    assert.deepEqual(parseFrontmatter('---\nname: demo\ndescription: [unclosed: here\nno colon line\nurl: http://x:1\n---\nB'), {
      frontmatter: { name: 'demo', description: '[unclosed: here', url: 'http://x:1' },
      body: 'B',
    });
  });
});

test('truncateDescription: up to 1024 characters as is, longer ones cut to 1021 and an ellipsis', () => {
  assert.equal(truncateDescription('d'.repeat(1024)), 'd'.repeat(1024));
  assert.equal(truncateDescription('d'.repeat(1025)), 'd'.repeat(1021) + '...');
});

test('matchesPlatform: no platforms match everywhere; names map to Node platforms, case and spaces ignored', () => {
  const here = process.platform;
  const other = here === 'linux' ? 'windows' : 'linux';
  assert.equal(matchesPlatform({}), true);
  assert.equal(matchesPlatform({ platforms: [] }), true);
  assert.equal(matchesPlatform({ platforms: other }), false);
  assert.equal(matchesPlatform({ platforms: [other, ` ${here.toUpperCase()} `] }), true);
  if (here === 'linux') {
    assert.equal(matchesPlatform({ platforms: ['macos', 'Linux'] }), true);
    assert.equal(matchesPlatform({ platforms: ['macos', 'windows'] }), false);
  }
});

test('matchesEnvironment: none matches; kanban only in a Kanban context; unknown tags fail open; blanks are skipped', () => {
  assert.equal(matchesEnvironment({}, false), true);
  assert.equal(matchesEnvironment({ environments: [] }, false), true);
  assert.equal(matchesEnvironment({ environments: 'kanban' }, true), true);
  assert.equal(matchesEnvironment({ environments: ['Kanban', ' '] }, false), false);
  assert.equal(matchesEnvironment({ environments: ['kanban', 'spaceship'] }, false), true);
  const docker = existsSync('/.dockerenv') || existsSync('/run/.containerenv');
  assert.equal(matchesEnvironment({ environments: ['docker'] }, false), docker);
});

test('parseTags: lists (falsy items dropped, items as trimmed strings), comma strings, bracketed and quoted strings', () => {
  assert.deepEqual(parseTags(undefined), []);
  assert.deepEqual(parseTags(''), []);
  assert.deepEqual(parseTags(['a', ' b ', null, '', 0, false, 3, true]), ['a', 'b', '3', 'true']);
  assert.deepEqual(parseTags('x, y ,,z'), ['x', 'y', 'z']);
  assert.deepEqual(parseTags(` ["one", 'two', three] `), ['one', 'two', 'three']);
  assert.deepEqual(parseTags(42), ['42']);
});

describe('requiredEnvironmentVariables', () => {
  test('declared names and entries, setup.collect_secrets and legacy prerequisites, in that order, first one of a name wins', () => {
    assert.deepEqual(
      requiredEnvironmentVariables({
        required_environment_variables: ['API_KEY', { name: 'TOKEN', prompt: ' Your token ', help: 'see docs', required_for: 'uploads', optional: true }, 7],
        setup: { help: 'setup help', collect_secrets: [{ env_var: 'SECRET', prompt: 'Secret?', provider_url: 'https://p.example' }, { env_var: 'API_KEY', prompt: 'dup' }, 'not a mapping'] },
        prerequisites: { env_vars: ['LEGACY', ' ', 'bad-name'] },
      }),
      [
        { name: 'API_KEY', prompt: 'Enter value for API_KEY', help: 'setup help' },
        { name: 'TOKEN', prompt: 'Your token', help: 'see docs', required_for: 'uploads', optional: true },
        { name: 'SECRET', prompt: 'Secret?', help: 'https://p.example' },
        { name: 'LEGACY', prompt: 'Enter value for LEGACY', help: 'setup help' },
      ],
    );
  });
  test('a single mapping, a legacy string, invalid names and blanks', () => {
    assert.deepEqual(requiredEnvironmentVariables({ required_environment_variables: { env_var: 'ONE', url: 'https://u' } }), [{ name: 'ONE', prompt: 'Enter value for ONE', help: 'https://u' }]);
    assert.deepEqual(requiredEnvironmentVariables({ prerequisites: { env_vars: 'SOLO' } }), [{ name: 'SOLO', prompt: 'Enter value for SOLO' }]);
    assert.deepEqual(requiredEnvironmentVariables({ required_environment_variables: ['1BAD', 'has space', '', { prompt: 'no name' }] }), []);
    assert.deepEqual(requiredEnvironmentVariables({ setup: { collect_secrets: { env_var: 'S', url: '  ' } } }), [{ name: 'S', prompt: 'Enter value for S' }]);
    assert.deepEqual(requiredEnvironmentVariables({}), []);
  });
});
