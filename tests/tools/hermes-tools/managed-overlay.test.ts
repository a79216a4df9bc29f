import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { after, test } from 'node:test';
import { parsePyYaml } from '../../../supervisor/platform/yaml.js';
import { mergeLeaves, OVERLAY_DIR, TOOL_SERVER_SETTINGS, writeToolServerOverlay } from '../../../supervisor/tools/hermes-tools/managed-overlay.js';
import { loadConfig } from '../../../supervisor/platform/config.js';
import { managedScopeDir } from '../../../supervisor/platform/hermes/managed-scope.js';
import { hermes } from '../../helpers/hermes.js';
import { tempDirs } from '../../helpers/temp.js';

// The managed scope the gateway gives Hermes' tool server (managed-overlay.ts): the three settings
// a tool server needs over the administrator's own managed scope, which is found as Hermes finds it
// (hermes_cli/managed_scope.py get_managed_dir) and carried over (its config.yaml merged under, its
// .env copied). The gateway handing it to the tool server is managed-overlay-gateway.test.ts; the
// real tool server reading it is real-tool-search.test.ts.

const temp = tempDirs();
after(() => temp.removeAll());

const written = (dir: string) => parsePyYaml(readFileSync(join(dir, 'config.yaml'), 'utf8')) as Record<string, unknown>;
const mode = (path: string) => statSync(path).mode & 0o777;

function adminDir(config?: string, dotenv?: string): string {
  const dir = temp.make('hmcp-admin-scope-');
  if (config !== undefined) writeFileSync(join(dir, 'config.yaml'), config);
  if (dotenv !== undefined) writeFileSync(join(dir, '.env'), dotenv);
  return dir;
}

test('without an administrator scope: the three settings alone, in a private directory', () => {
  const state = temp.make('hmcp-state-');
  const overlay = writeToolServerOverlay({ stateDir: state, admin: undefined });
  assert.deepEqual(overlay.warnings, []);
  assert.equal(overlay.admin, undefined);
  assert.equal(dirname(overlay.dir!), join(state, OVERLAY_DIR));
  assert.deepEqual(written(overlay.dir!), { tools: { tool_search: { enabled: 'off' } }, agent: { image_input_mode: 'text' }, web: { keyless_rescue: false } });
  assert.equal(mode(overlay.dir!), 0o700);
  assert.equal(mode(join(overlay.dir!, 'config.yaml')), 0o600);
  assert.equal(existsSync(join(overlay.dir!, '.env')), false);
});

test("an administrator's HERMES_MANAGED_DIR: its pins kept, the tool server's three win over its own, its .env copied byte for byte", () => {
  const dotenv = 'FIRECRAWL_API_URL=http://127.0.0.1:9\n# a comment\nPOLICY="${HOME}/x"\n';
  const admin = adminDir(
    [
      'model: admin/pinned-model',
      'tools:',
      '  tool_search: {enabled: on, defer: [image_generate, web_search]}',
      'agent: {image_input_mode: native, max_turns: 12}',
      'web: {backend: firecrawl, keyless_rescue: yes}',
      'security: {allow_private_urls: n}',
      'approvals: {url: "${ADMIN_URL}"}',
    ].join('\n'),
    dotenv,
  );
  const state = temp.make('hmcp-state-');
  const overlay = writeToolServerOverlay({ stateDir: state, admin });
  assert.deepEqual([overlay.admin, overlay.warnings], [admin, []]);
  assert.deepEqual(written(overlay.dir!), {
    model: 'admin/pinned-model',
    tools: { tool_search: { enabled: 'off', defer: ['image_generate', 'web_search'] } },
    agent: { image_input_mode: 'text', max_turns: 12 },
    web: { backend: 'firecrawl', keyless_rescue: false },
    security: { allow_private_urls: 'n' }, // PyYAML's reading: `n` is a string, no switch
    approvals: { url: '${ADMIN_URL}' }, // expanded by Hermes against the tool server's environment, as from the administrator's file
  });
  assert.equal(readFileSync(join(overlay.dir!, '.env'), 'utf8'), dotenv);
  assert.equal(mode(join(overlay.dir!, '.env')), 0o600);

  // Another scope (here: no .env) in the same state directory, as a second gateway of the same
  // user would have it: a directory of its own, the first one left as it is.
  const again = writeToolServerOverlay({ stateDir: state, admin: adminDir('web: {backend: exa}\n') });
  assert.notEqual(again.dir, overlay.dir);
  assert.equal(existsSync(join(again.dir!, '.env')), false);
  assert.deepEqual((written(again.dir!).web as Record<string, unknown>).backend, 'exa');
  assert.equal(readFileSync(join(overlay.dir!, '.env'), 'utf8'), dotenv);
  // The same scope again: the same directory.
  assert.equal(writeToolServerOverlay({ stateDir: state, admin }).dir, overlay.dir);
});

test("no copy of the administrator's secrets outlives its source: one directory per scope, rewritten in place; every other overlay brought up to date; older copies removed", () => {
  const state = temp.make('hmcp-state-');
  const root = join(state, OVERLAY_DIR);
  const admin = adminDir('web: {backend: firecrawl}\n', 'FIRECRAWL_API_KEY=first\n');
  const first = writeToolServerOverlay({ stateDir: state, admin });
  // A rotated key: the same directory (its name says nothing of the content), the old key gone.
  writeFileSync(join(admin, '.env'), 'FIRECRAWL_API_KEY=second\n');
  const rotated = writeToolServerOverlay({ stateDir: state, admin });
  assert.equal(rotated.dir, first.dir);
  assert.match(basename(rotated.dir!), /^scope-[0-9a-f]{16}$/);
  assert.equal(readFileSync(join(rotated.dir!, '.env'), 'utf8'), 'FIRECRAWL_API_KEY=second\n');
  assert.deepEqual(readdirSync(root), [basename(first.dir!)]);
  assert.deepEqual(readdirSync(first.dir!).sort(), ['.env', 'config.yaml', 'scope']);
  // The administrator's .env removed: so is the copy.
  rmSync(join(admin, '.env'));
  writeToolServerOverlay({ stateDir: state, admin });
  assert.equal(existsSync(join(first.dir!, '.env')), false);

  // Another gateway of the same user, with another scope (or none), brings this one up to date
  // from its scope as it is now: a key rotated since is rotated in the copy, a scope gone leaves
  // the three settings alone.
  writeFileSync(join(admin, '.env'), 'FIRECRAWL_API_KEY=third\n');
  const other = writeToolServerOverlay({ stateDir: state, admin: undefined });
  assert.equal(basename(other.dir!), 'no-scope');
  assert.deepEqual(other.warnings, []);
  assert.equal(readFileSync(join(first.dir!, '.env'), 'utf8'), 'FIRECRAWL_API_KEY=third\n');
  writeFileSync(join(admin, '.env'), 'FIRECRAWL_API_KEY=fourth\n');
  writeFileSync(join(admin, 'config.yaml'), 'web: {backend: exa}\n');
  writeToolServerOverlay({ stateDir: state, admin: undefined });
  assert.equal(readFileSync(join(first.dir!, '.env'), 'utf8'), 'FIRECRAWL_API_KEY=fourth\n');
  assert.deepEqual((written(first.dir!).web as Record<string, unknown>).backend, 'exa');
  rmSync(admin, { recursive: true });
  writeToolServerOverlay({ stateDir: state, admin: undefined });
  assert.equal(existsSync(join(first.dir!, '.env')), false);
  assert.deepEqual(written(first.dir!), TOOL_SERVER_SETTINGS);
  assert.equal(readFileSync(join(first.dir!, 'scope'), 'utf8'), admin, 'the scope is still named, should it come back');

  // A directory of an older scheme (named by a digest of its content) is removed with its copy; a
  // temporary file whose writer died is removed, a live writer's is left to it.
  const legacy = join(root, '0123456789abcdef');
  mkdirSync(legacy, { mode: 0o700 });
  writeFileSync(join(legacy, '.env'), 'FIRECRAWL_API_KEY=revoked\n', { mode: 0o600 });
  const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  assert.match(dead.stdout, /^\d+$/, 'a process that has exited');
  const leftover = join(other.dir!, `.env.${dead.stdout}.tmp`);
  const writing = join(first.dir!, `.env.${process.pid}.tmp`);
  writeFileSync(leftover, 'FIRECRAWL_API_KEY=half-written\n');
  writeFileSync(writing, 'FIRECRAWL_API_KEY=being-written\n');
  writeToolServerOverlay({ stateDir: state, admin: undefined });
  assert.deepEqual(readdirSync(root).sort(), [basename(first.dir!), 'no-scope'].sort());
  assert.equal(existsSync(leftover), false);
  assert.equal(existsSync(writing), true);
});

test('the scope is found as Hermes finds it: HERMES_MANAGED_DIR when it is a directory (and then never /etc/hermes), else /etc/hermes', () => {
  const admin = adminDir('web: {backend: firecrawl}\n');
  const scope = (value?: string) => managedScopeDir(loadConfig({ HERMES_HOME: admin, ...(value === undefined ? {} : { HERMES_MANAGED_DIR: value }) }));
  assert.equal(scope(admin), admin);
  assert.equal(loadConfig({ HERMES_HOME: admin, HERMES_MANAGED_DIR: '   ' }).hermesManagedDir, '/etc/hermes', 'blank is unset');
  assert.equal(loadConfig({ HERMES_HOME: admin }).hermesManagedDir, '/etc/hermes');
  assert.equal(scope(join(admin, 'absent')), undefined, 'a named directory that does not exist is no scope at all');
  assert.equal(scope(join(admin, 'config.yaml')), undefined, 'a file is not a directory');
  const overlay = writeToolServerOverlay({ stateDir: temp.make('hmcp-state-'), admin: scope(admin) });
  assert.equal(overlay.admin, admin);
  assert.deepEqual((written(overlay.dir!).web as Record<string, unknown>).backend, 'firecrawl');
});

test("a config.yaml Hermes would ignore (not YAML, not a mapping) is reported and left out; the tool server's settings still apply", () => {
  for (const [text, why] of [['tools: [unclosed\n', /is not valid YAML/], ['- a list\n', /is not a mapping/]] as const) {
    const admin = adminDir(text, 'A=1\n');
    const overlay = writeToolServerOverlay({ stateDir: temp.make('hmcp-state-'), admin });
    assert.equal(overlay.admin, admin);
    assert.equal(overlay.warnings.length, 1);
    assert.match(overlay.warnings[0]!, why);
    assert.deepEqual(written(overlay.dir!), TOOL_SERVER_SETTINGS);
    assert.equal(readFileSync(join(overlay.dir!, '.env'), 'utf8'), 'A=1\n', 'the .env is carried all the same');
  }
  const empty = writeToolServerOverlay({ stateDir: temp.make('hmcp-state-'), admin: adminDir('') });
  assert.deepEqual(empty.warnings, [], 'an empty file is an empty scope');
});

test('a state directory that cannot be written: no overlay (the tool server keeps Hermes\' own scope), and the reason', () => {
  const state = temp.make('hmcp-state-');
  writeFileSync(join(state, OVERLAY_DIR), 'a file where the directory would go');
  const admin = adminDir('web: {backend: firecrawl}\n');
  const overlay = writeToolServerOverlay({ stateDir: state, admin });
  assert.equal(overlay.dir, undefined);
  assert.equal(overlay.admin, admin);
  assert.match(overlay.warnings.join('\n'), new RegExp(`could not be written in ${join(state, OVERLAY_DIR)}/scope-[0-9a-f]{16} .*it runs with ${admin} instead`));
});

test('values beyond printable ASCII are written as YAML escapes, which PyYAML (Hermes\' reader) reads back as they were', () => {
  const note = 'café \u2028 line sep \u0085 next line \u0090 C1 \ud83d\ude00 emoji \ufffe';
  const admin = adminDir(`approvals:\n  note: ${JSON.stringify(note)}\n`);
  const overlay = writeToolServerOverlay({ stateDir: temp.make('hmcp-state-'), admin });
  const text = readFileSync(join(overlay.dir!, 'config.yaml'), 'utf8');
  assert.match(text, /^[\x20-\x7e\n]*$/, 'ASCII only');
  const read = spawnSync(hermes().python, ['-c', 'import json, sys, yaml; print(json.dumps(yaml.safe_load(open(sys.argv[1], encoding="utf-8-sig"))))', join(overlay.dir!, 'config.yaml')], { encoding: 'utf8' });
  assert.equal(read.status, 0, read.stderr);
  assert.deepEqual(JSON.parse(read.stdout), { approvals: { note }, ...TOOL_SERVER_SETTINGS });
});

test("leaves merge as Hermes' _deep_merge merges them: mappings key by key, anything else replaced; no prototype keys", () => {
  const base = JSON.parse('{"a": {"b": 1, "c": [1]}, "d": "x", "__proto__": {"polluted": true}}') as Record<string, unknown>;
  const merged = mergeLeaves(base, { a: { c: [2], e: { f: 3 } }, d: { g: 4 } });
  assert.equal(JSON.stringify(merged), '{"a":{"b":1,"c":[2],"e":{"f":3}},"d":{"g":4},"__proto__":{"polluted":true}}');
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});
