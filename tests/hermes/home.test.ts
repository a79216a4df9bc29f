import assert from 'node:assert/strict';
import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { parse } from 'yaml';
import { loadConfig } from '../../supervisor/platform/config.js';
import { makeHermesHome as baseHome } from '../helpers/gateway.js';
import { makeHermesHome } from '../helpers/hermes.js';
import { tempDirs } from '../helpers/temp.js';

// A test HERMES_HOME built by Hermes' own config code (hermes_cli.config, in the pinned venv) is one
// the gateway reads as it reads a user's: config.yaml with the merged keys, .env at 0600.

const temp = tempDirs();
after(() => temp.removeAll());

test("a home made by Hermes' config module has the merged config.yaml keys, a 0600 .env and Hermes' SOUL.md, and the gateway reads it", () => {
  const home = makeHermesHome(join(temp.make('hermes-home-'), 'home'), { config: { web: { backend: 'firecrawl' }, timezone: 'Europe/Berlin' }, env: { FIRECRAWL_API_URL: 'http://127.0.0.1:9' } });
  const config = parse(readFileSync(join(home, 'config.yaml'), 'utf8')) as { web?: { backend?: string }; timezone?: string };
  assert.equal(config.web?.backend, 'firecrawl');
  assert.equal(config.timezone, 'Europe/Berlin');
  assert.equal(statSync(join(home, '.env')).mode & 0o777, 0o600);
  assert.match(readFileSync(join(home, '.env'), 'utf8'), /^FIRECRAWL_API_URL=http:\/\/127\.0\.0\.1:9$/m);
  assert.ok(readFileSync(join(home, 'SOUL.md'), 'utf8').length > 0);
  assert.equal(loadConfig({ HERMES_HOME: home }).hermesHome, home);
});

test("the gateway tests' base home is Hermes' own: memories by its memory tool, the demo skill by skill_manage; each test gets its own copy", () => {
  const a = baseHome();
  const b = baseHome();
  try {
    // MemoryStore._write_file joins entries with ENTRY_DELIMITER ("\n§\n") and adds no final newline.
    assert.equal(readFileSync(join(a, 'memories', 'MEMORY.md'), 'utf8'), 'Project uses pnpm.\n§\nDeploys on Fridays are banned.');
    assert.equal(readFileSync(join(a, 'memories', 'USER.md'), 'utf8'), 'Name: Ada');
    assert.match(readFileSync(join(a, 'skills', 'demo', 'SKILL.md'), 'utf8'), /^---\nname: demo\ndescription: A demo skill\n---\n/);
    assert.ok(statSync(join(a, 'cron')).isDirectory(), "ensure_hermes_home's directories are there");
    writeFileSync(join(a, 'memories', 'USER.md'), 'changed');
    assert.equal(readFileSync(join(b, 'memories', 'USER.md'), 'utf8'), 'Name: Ada', 'a copy, not the template itself');
  } finally {
    rmSync(a, { recursive: true, force: true });
    rmSync(b, { recursive: true, force: true });
  }
});
