import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { defaultLimits, loadLimits } from '../../../shared/limits.js';
import { readHermesConfig } from '../../../supervisor/platform/hermes-config.js';
import { OperatorDenyRules } from '../../../supervisor/tools/command-guards/deny-rules.js';
import { resolveHonchoConfig } from '../../../supervisor/tools/memory/config.js';
import { disabledSkillNames } from '../../../supervisor/tools/skills/discover.js';
import { tempDirs } from '../../helpers/temp.js';

// Hermes' config.yaml is read by several tools for one setting each; how large a file they read is
// the named limit hermesConfigMaxBytes (HERMES_MCP_HERMES_CONFIG_MAX_BYTES, 4 MiB by default). A
// larger file is reported as unusable, like an unparsable one, by every reader.

const temp = tempDirs();
after(() => temp.removeAll());

/** A Hermes home whose config.yaml holds a Honcho base URL, a deny rule and a disabled skill, padded to `size` bytes. */
function homeWithConfig(size: number): string {
  const home = temp.make('hmcp-config-size-');
  mkdirSync(home, { recursive: true });
  const body = 'honcho:\n  base_url: http://127.0.0.1:9/\napprovals:\n  deny:\n    - "rm -rf *"\nskills:\n  disabled: [alpha]\n';
  writeFileSync(join(home, 'config.yaml'), body + '#'.repeat(Math.max(0, size - body.length - 1)) + '\n');
  return home;
}

test('the default is 4 MiB, and HERMES_MCP_HERMES_CONFIG_MAX_BYTES sets it', () => {
  assert.equal(defaultLimits().hermesConfigMaxBytes, 4 * 1024 * 1024);
  assert.equal(loadLimits({ HERMES_MCP_HERMES_CONFIG_MAX_BYTES: '2048' }).hermesConfigMaxBytes, 2048);
});

test('a config.yaml within the limit is read; one byte over it is refused, naming the limit', () => {
  const home = homeWithConfig(2048);
  assert.deepEqual(readHermesConfig(home, 2048).doc?.skills, { disabled: ['alpha'] });
  const over = readHermesConfig(home, 2047);
  assert.equal(over.doc, undefined);
  assert.match(over.error ?? '', /config\.yaml: is larger than 2047 bytes \(hermesConfigMaxBytes\)/);
});

test('every reader honours the limit it is given: the deny rules, the Honcho base URL, skills.disabled', async () => {
  const home = homeWithConfig(4096);
  const missingManaged = join(home, 'no-managed-scope');
  const rules = (limit: number) => new OperatorDenyRules({ hermesHome: home, hermesManagedDir: missingManaged, inheritedEnvironment: {}, limits: { ...defaultLimits(), hermesConfigMaxBytes: limit } }).current();
  const within = rules(4096);
  assert.equal('rules' in within ? within.rules.length : JSON.stringify(within), 1);
  const refused = rules(1024);
  assert.ok('problem' in refused && /larger than 1024 bytes/.test(refused.problem), JSON.stringify(refused));

  const honchoWarnings = (limit: number): string[] => {
    const r = resolveHonchoConfig(home, { HONCHO_API_KEY: 'hch-not-real-key' }, home, undefined, limit);
    return r.status === 'configured' ? r.settings.warnings : r.warnings;
  };
  assert.deepEqual(honchoWarnings(4096).filter((w) => /larger than/.test(w)), []);
  assert.ok(honchoWarnings(1024).some((w) => /config\.yaml: is larger than 1024 bytes/.test(w)), JSON.stringify(honchoWarnings(1024)));

  assert.deepEqual([...(await disabledSkillNames(home, undefined, 4096))], ['alpha']);
  assert.deepEqual([...(await disabledSkillNames(home, undefined, 1024))], []);
});
