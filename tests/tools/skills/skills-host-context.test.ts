import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { loadConfig } from '../../../supervisor/platform/config.js';
import type { CallContext } from '../../../supervisor/core/tool-types.js';
import { skillsTools } from '../../../supervisor/tools/skills/index.js';
import { makeHermesHome as writeHermesConfig } from '../../helpers/hermes.js';
import { tempDirs } from '../../helpers/temp.js';

// The skills tools answer Hermes' host questions (which platform, a Kanban task, is a variable set)
// from the gateway's configuration, i.e. the environment loadConfig was given, never from whatever
// the supervisor process's environment happens to hold.

const temp = tempDirs();
after(() => temp.removeAll());
const ctx: CallContext = { owner: { id: 'request:t', kind: 'request' }, signal: new AbortController().signal, callId: 't', era: 'modern', callNested: () => Promise.reject(new Error('nested calls are not part of this test')) };

function hermesHome(): string {
  const home = temp.make('hmcp-skills-host-');
  const skill = (name: string, extra: string) => `---\nname: ${name}\ndescription: ${name}\n${extra}---\nBody.\n`;
  // Skills and config.yaml written by Hermes' own code (skill_manage's create path, the config module).
  return writeHermesConfig(home, {
    config: { skills: { platform_disabled: { telegram: ['chatty'] } } },
    skills: { 'board-work': skill('board-work', 'environments: [kanban]\n'), chatty: skill('chatty', ''), 'needs-key': skill('needs-key', 'required_environment_variables:\n  - SKILLS_HOST_TEST_KEY\n') },
  });
}

async function listed(env: NodeJS.ProcessEnv): Promise<string[]> {
  const [list] = skillsTools(loadConfig(env));
  const r = (await list!.handler({}, ctx)).structured as { skills: Array<{ name: string }> };
  return r.skills.map((s) => s.name).sort();
}

test('Kanban-only skills are offered when the configuration says this runs for a Kanban task', async () => {
  const home = hermesHome();
  assert.deepEqual(await listed({ HERMES_HOME: home, HERMES_KANBAN_TASK: 't_1' }), ['board-work', 'chatty', 'needs-key']);
  assert.deepEqual(await listed({ HERMES_HOME: home }), ['chatty', 'needs-key']);
});

test("config.yaml skills.platform_disabled applies to the configured platform", async () => {
  const home = hermesHome();
  assert.deepEqual(await listed({ HERMES_HOME: home, HERMES_SESSION_PLATFORM: 'telegram' }), ['needs-key']);
  assert.deepEqual(await listed({ HERMES_HOME: home, HERMES_PLATFORM: 'discord' }), ['chatty', 'needs-key']);
});

test("skill_view's required variables are looked up in the configured environment", async () => {
  const home = hermesHome();
  const view = async (env: NodeJS.ProcessEnv) => {
    const [, skillView] = skillsTools(loadConfig(env));
    return (await skillView!.handler({ name: 'needs-key' }, ctx)).structured as Record<string, unknown>;
  };
  assert.deepEqual((await view({ HERMES_HOME: home, SKILLS_HOST_TEST_KEY: 'set' })).missing_required_environment_variables, []);
  assert.deepEqual((await view({ HERMES_HOME: home })).missing_required_environment_variables, ['SKILLS_HOST_TEST_KEY']);
});
