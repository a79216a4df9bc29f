import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { copyOfHermesHome, type HomeSpec } from './hermes.js';

// The throwaway HERMES_HOME most tests start from, apart from the gateway helpers (gateway.ts
// re-exports it), so a unit test can have one without reaching a gateway starter.

/**
 * The base test home, written by Hermes' own code (tests/hermes/drivers/make_home.py): its default
 * SOUL.md and directories (hermes_cli.config.ensure_hermes_home), two memory entries and a user
 * profile entry through its memory tool, the demo skill through skill_manage's create path.
 */
const BASE_HOME: HomeSpec = {
  memories: { memory: ['Project uses pnpm.', 'Deploys on Fridays are banned.'], user: ['Name: Ada'] },
  skills: { demo: '---\nname: demo\ndescription: A demo skill\n---\n# Demo\nBody.\n' },
};
/** A project context file: Hermes only reads .hermes.md (agent/prompt_builder.py), a user writes it. */
const BASE_HOME_FILES = { '.hermes.md': '# Project context\n' };

/** A fresh throwaway HERMES_HOME: a copy of the base home, which Hermes builds once (copyOfHermesHome). */
export function makeHermesHome(): string {
  return copyOfHermesHome(mkdtempSync(join(tmpdir(), 'hmcp-home-')), BASE_HOME, BASE_HOME_FILES);
}
