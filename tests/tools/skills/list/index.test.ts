import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, test } from 'node:test';
import { loadLimits, type Limits } from '../../../../shared/limits.js';
import type { CallContext } from '../../../../supervisor/core/tool-types.js';
import { HermesRelease } from '../../../../supervisor/platform/hermes/release.js';
import type { SkillsContext } from '../../../../supervisor/tools/skills/common.js';
import { skillsListTool } from '../../../../supervisor/tools/skills/list/index.js';
import { tempDirs } from '../../../helpers/temp.js';

// skills_list built directly over real skill trees.

const temp = tempDirs();
after(() => temp.removeAll());

const skill = (name: string, description: string) => `---\nname: ${name}\ndescription: ${description}\n---\nbody\n`;

function ctx(): CallContext {
  return { owner: { id: `request:${randomUUID()}`, kind: 'request' }, signal: new AbortController().signal, callId: randomUUID(), era: 'modern', callNested: () => Promise.reject(new Error('no nested calls')) };
}

function tool(files: Record<string, string> | null, overrides: Partial<Limits> = {}) {
  const home = temp.make('hmcp-skills-list-');
  if (files) {
    mkdirSync(join(home, 'skills'));
    for (const [rel, text] of Object.entries(files)) {
      mkdirSync(dirname(join(home, 'skills', rel)), { recursive: true });
      writeFileSync(join(home, 'skills', rel), text);
    }
  }
  const config: SkillsContext = { hermesHome: home, limits: loadLimits({}, overrides), kanbanContext: false, inheritedEnvironment: {}, release: new HermesRelease(undefined) };
  return skillsListTool(config);
}

test('the tool: read-only, a category filter only', () => {
  const t = tool({});
  assert.equal(t.name, 'skills_list');
  assert.deepEqual(Object.keys((t.inputSchema as unknown as { properties: object }).properties), ['category']);
  assert.equal(t.annotations?.readOnlyHint, true);
});

test('every skill by category, then name; its categories sorted; a category filters', async () => {
  const t = tool({ 'dev/zeta/SKILL.md': skill('zeta', 'Z'), 'ops/alpha/SKILL.md': skill('alpha', 'A'), 'dev/beta/SKILL.md': skill('beta', 'B') });
  const all = (await t.handler({}, ctx())).structured!;
  assert.deepEqual(all, {
    success: true,
    skills: [
      { name: 'beta', description: 'B', category: 'dev' },
      { name: 'zeta', description: 'Z', category: 'dev' },
      { name: 'alpha', description: 'A', category: 'ops' },
    ],
    categories: ['dev', 'ops'],
    count: 3,
    hint: 'Use skill_view(name) to see full content, tags, and linked files',
  });
  const dev = (await t.handler({ category: 'dev' }, ctx())).structured!;
  assert.deepEqual((dev.skills as Array<{ name: string }>).map((s) => s.name), ['beta', 'zeta']);
  assert.deepEqual(dev.categories, ['dev']);
  assert.equal(dev.count, 2);
  const none = (await t.handler({ category: 'nope' }, ctx())).structured!;
  assert.deepEqual([none.count, none.categories], [0, []]);
  assert.equal((await t.handler({ category: '' }, ctx())).structured!.count, 3);
});

test('no skills: an empty list with the reason', async () => {
  const empty = (await tool({}).handler({}, ctx())).structured!;
  assert.deepEqual(empty, { success: true, skills: [], categories: [], message: 'No skills found in skills/ directory.' });
  const missing = (await tool(null).handler({}, ctx())).structured!;
  assert.deepEqual([missing.success, missing.skills], [true, []]);
  assert.match(String(missing.message), /^No skills found\. ./);
});

test('a walk stopped at skillsMaxFiles says the list may be incomplete', async () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < 8; i++) files[`c/s${i}/SKILL.md`] = skill(`s${i}`, 'd');
  const out = (await tool(files, { skillsMaxFiles: 4 }).handler({}, ctx())).structured!;
  assert.equal(out.truncated, true);
  assert.match(String(out.warning), /^Stopped walking the skills directory after 4 entries \(.*\); the list may be incomplete\.$/);
});
