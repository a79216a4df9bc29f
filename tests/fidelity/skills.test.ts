import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { HomeSpec } from '../helpers/hermes.js';
import { isDeepStrictEqual } from 'node:util';
import type { Check } from '../../scripts/divergence-predicates.js';
import { compareSurface, errorAsHermes, loadCases, normalise, oneByOne, oracleAnswers, runOracle, SurfaceFixture, type Answers, type FidelityCase } from './harness.js';
import { writeFiles, type FidelityGateway, type FileSpec } from './workspace.js';

// skills_list / skill_view against Hermes' own (tools/skills_tool.py), over MCP. Both homes hold
// the same skills tree (SKILLS below, written into $HERMES_HOME/skills), the same config.yaml
// (disabled: one skill, the hermes-agent skill Hermes 0.22 never hides from the list, and one load
// name), the same .env (one required variable set there only) and one credential file in
// HERMES_HOME. The gateway follows the compared Hermes (HERMES_MCP_HERMES_VERSION, workspace.ts).

interface SkillsCase extends FidelityCase {
  tool: 'skills_list' | 'skill_view';
  args: Record<string, string>;
  /** `without-skills-dir`: a home that has no skills directory at all. */
  home?: 'without-skills-dir';
  /**
   * The answer to a second, identical call in one task (Hermes: its registered skill_view handler,
   * which dedups repeat views, called twice with one task_id; the gateway: the same tool call
   * twice from one MCP session).
   */
  repeat?: true;
}

const skill = (front: string, body = '# Title\n\nBody text.\n') => `---\n${front}\n---\n${body}`;

const SKILLS: Record<string, FileSpec> = {
  'plain/SKILL.md': skill('name: plain\ndescription: A plain skill.'),
  'no-description/SKILL.md': skill('name: no-description', '# Heading only\n\nFirst body line is the description.\nSecond line.\n'),
  'long-description/SKILL.md': skill(`name: long-description\ndescription: "${'Long description sentence. '.repeat(60).trim()}"`),
  'linux-only/SKILL.md': skill('name: linux-only\ndescription: Linux only.\nplatforms: [linux]'),
  'mac-only/SKILL.md': skill('name: mac-only\ndescription: macOS only.\nplatforms: [macos]'),
  'needs-env/SKILL.md': skill(
    'name: needs-env\ndescription: Needs two variables.\nrequired_environment_variables:\n  - name: FID_SKILL_TOKEN\n    prompt: Your token\n    help: https://example.invalid/token\n    required_for: API calls\n  - FID_SKILL_MISSING\n  - name: "not a name"\n',
  ),
  'env-in-dotenv/SKILL.md': skill('name: env-in-dotenv\ndescription: Its variable is in .env.\nrequired_environment_variables: [FID_DOTENV_KEY]'),
  'optional-env/SKILL.md': skill('name: optional-env\ndescription: Optional variable.\nrequired_environment_variables:\n  - name: FID_OPTIONAL\n    optional: true'),
  'setup-collect/SKILL.md': skill(
    'name: setup-collect\ndescription: Setup block.\nsetup:\n  help: Get a key from the dashboard.\n  collect_secrets:\n    - env_var: FID_COLLECTED\n      prompt: Paste it\n      provider_url: https://example.invalid/keys',
  ),
  'prereq-legacy/SKILL.md': skill('name: prereq-legacy\ndescription: Legacy prerequisites.\nprerequisites:\n  env_vars: [FID_LEGACY]\n  commands: [jq]'),
  'cred-files/SKILL.md': skill('name: cred-files\ndescription: Declares credential files.\nrequired_credential_files:\n  - present.json\n  - path: missing.json\n  - ../outside.json'),
  'linked/SKILL.md': skill('name: linked\ndescription: Has linked files.'),
  'linked/references/api.md': '# API\n',
  'linked/references/notes.txt': 'not a reference\n',
  'linked/references/bom.md': '\ufeff# Saved with a byte order mark\n',
  'linked/templates/config.yaml': 'a: 1\n',
  'linked/templates/sub/gen.py': 'print("gen")\n',
  'linked/assets/logo.bin': { base64: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff, 0xfe, 0x01]).toString('base64') },
  'linked/scripts/run.sh': '#!/bin/sh\necho run\n',
  'linked/scripts/readme.txt': 'not a script\n',
  'linked/extra.md': '# extra\n',
  'tagged/SKILL.md': skill('name: tagged\ndescription: Tags and related skills.\ntags: "[one, \'two\', three]"\nmetadata:\n  hermes:\n    related_skills: [plain, linked]\n  author: someone\ncompatibility: Needs a shell'),
  'devops/DESCRIPTION.md': 'DevOps skills.\n',
  'devops/deploy/SKILL.md': skill('name: deploy\ndescription: Deploys things.'),
  'devops/k8s/helm/SKILL.md': skill('name: helm\ndescription: Nested two deep.'),
  'renames/dir-of-renamed/SKILL.md': skill('name: renamed-skill\ndescription: Its name is not its directory.'),
  'alpha/twin/SKILL.md': skill('name: twin\ndescription: First twin.'),
  'beta/twin/SKILL.md': skill('name: twin\ndescription: Second twin.'),
  'disabled-skill/SKILL.md': skill('name: disabled-skill\ndescription: Disabled in config.yaml.'),
  'broken-yaml/SKILL.md': '---\nname: broken-yaml\ndescription: colon: inside: value\ntags: [unclosed\n---\n# Broken\n\nBody.\n',
  'legacy-flat.md': '# Legacy flat skill\n\nA flat markdown skill.\n',
  'bom-skill/SKILL.md': '\ufeff' + skill('name: bom-skill\ndescription: Starts with a byte order mark.'),
  '.hidden/SKILL.md': skill('name: hidden-dot\ndescription: Under a dot directory.'),
  'node_modules/pkg/SKILL.md': skill('name: in-node-modules\ndescription: Excluded directory.'),
  // Excluded from Hermes 0.22 on (EXCLUDED_SKILL_DIRS).
  '.curator_backups/old/SKILL.md': skill('name: curator-backup\ndescription: A Curator backup copy.'),
  // Disabled in config.yaml; Hermes 0.22 never hides it from the list (ESSENTIAL_SKILLS).
  'hermes-agent/SKILL.md': skill('name: hermes-agent\ndescription: The agent\'s own manual.'),
  // Byte-identical copies of one skill at two depths: 0.22 loads the shallower.
  'copies/same/SKILL.md': skill('name: same\ndescription: One skill, two copies.'),
  'copies/deeper/x/same/SKILL.md': skill('name: same\ndescription: One skill, two copies.'),
  // One skill's declared name is another's directory name: 0.22 lists the first by its path.
  'x/alias-dir/SKILL.md': skill('name: alias-owner\ndescription: Declares the name.'),
  'y/alias-owner/SKILL.md': skill('name: other-name\ndescription: Its directory has the name.'),
};

const HOME: HomeSpec = {
  config: { skills: { disabled: ['disabled-skill', 'hermes-agent', 'beta/twin'] } },
  env: { FID_DOTENV_KEY: 'from-dotenv' },
};

const fx = new SurfaceFixture('skills');
const cases = loadCases<SkillsCase>('skills');
let gwHome = '';
let hermesHome = '';
let bareGwHome = '';
let bareHermesHome = '';
let bareGw: FidelityGateway | undefined;

const homeOf = (c: SkillsCase, side: 'gateway' | 'hermes') =>
  c.home === 'without-skills-dir' ? (side === 'gateway' ? bareGwHome : bareHermesHome) : side === 'gateway' ? gwHome : hermesHome;

/**
 * Hermes lists a skill's files in the order the filesystem returns them (pathlib glob / rglob); the
 * gateway sorts them. That order is the filesystem's, not Hermes', so both lists are compared sorted.
 */
function sortFileLists(v: unknown): unknown {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return v;
  const out: Record<string, unknown> = { ...(v as Record<string, unknown>) };
  for (const key of ['linked_files', 'available_files']) {
    const groups = out[key];
    if (typeof groups === 'object' && groups !== null && !Array.isArray(groups)) {
      out[key] = Object.fromEntries(Object.entries(groups).map(([k, list]) => [k, Array.isArray(list) ? [...(list as string[])].sort() : list]));
    }
  }
  return out;
}

const norm = (home: string) => (v: unknown) => normalise(sortFileLists(errorAsHermes(v)), { replace: { [home]: '<home>' } });

/** Hermes' answers, normalised (a check reads another case's). */
let hermesAnswers: Answers = new Map();

// What the divergences (divergences/skills.yaml) say the gateway answers where it differs,
// computed from Hermes' answers.
const checks: Record<string, Check> = {
  /** Names the variables Hermes reports missing, in its order, and where to set them. */
  'names-the-missing-variables': (c) => {
    const missing = (c.hermesAnswer as { missing_required_environment_variables?: unknown }).missing_required_environment_variables;
    if (!Array.isArray(missing) || missing.length === 0) return false;
    return c.gateway === `Secure secret entry is not available through the MCP gateway. Set ${missing.join(', ')} in the environment the Hermes tools run with (e.g. <home>/.env).`;
  },
  /** Hermes' own answer to the first view of the same skill (the view-plain case). */
  'as-hermes-first-view': (c) => {
    const first = cases.find((x) => x.id === 'view-plain');
    const repeated = cases.find((x) => x.id === c.caseId);
    return first !== undefined && isDeepStrictEqual(first.args, repeated?.args) && hermesAnswers.has('view-plain') && isDeepStrictEqual(c.gateway, hermesAnswers.get('view-plain'));
  },
};

compareSurface<SkillsCase>({
  surface: 'skills',
  cases,
  fixture: fx,
  async setUp() {
    gwHome = fx.hermesHome('gw', HOME);
    hermesHome = fx.hermesHome('hermes', HOME);
    for (const home of [gwHome, hermesHome]) {
      writeFiles(join(home, 'skills'), SKILLS);
      writeFiles(home, { 'present.json': '{}\n' }); // a declared credential file (cred-files)
    }
    bareGwHome = fx.hermesHome('bare-gw');
    bareHermesHome = fx.hermesHome('bare-hermes');
    for (const home of [bareGwHome, bareHermesHome]) rmSync(join(home, 'skills'), { recursive: true, force: true });
    await fx.gateway({ home: gwHome, roots: gwHome });
    bareGw = await fx.gateway({ home: bareGwHome, roots: bareGwHome });
  },
  async hermes(list) {
    const answers = oracleAnswers(await runOracle('skills.py', { cases: list.map((c) => ({ id: c.id, tool: c.tool, args: c.args, home: homeOf(c, 'hermes'), repeat: c.repeat === true })) }, hermesHome));
    hermesAnswers = new Map(list.map((c) => [c.id, norm(homeOf(c, 'hermes'))(answers.get(c.id))]));
    return hermesAnswers;
  },
  gateway: {
    mcp: (list) =>
      oneByOne(list, async (c) => {
        const gw = c.home ? bareGw! : fx.gw;
        if (c.repeat) await gw.call(c.tool, c.args);
        return norm(homeOf(c, 'gateway'))(await gw.call(c.tool, c.args));
      }),
  },
  checks,
});
