import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { missingRoots, rootsReadiness } from '../../../supervisor/platform/health/roots.js';
import { tempDirs } from '../../helpers/temp.js';

const temp = tempDirs();
after(() => temp.removeAll());

function roots() {
  const base = temp.make('hmcp-roots-probe-');
  const a = join(base, 'a');
  const b = join(base, 'b');
  mkdirSync(a);
  mkdirSync(b);
  const file = join(base, 'file');
  writeFileSync(file, '');
  return { a, b, file, gone: join(base, 'gone') };
}

test('missingRoots: every root that is not an existing directory, a plain file included, in order', () => {
  const { a, b, file, gone } = roots();
  assert.deepEqual(missingRoots([a, gone, b, file]), [gone, file]);
  assert.deepEqual(missingRoots([a, b]), []);
  assert.deepEqual(missingRoots([]), []);
});

test('every root exists: ready, ok, with the roots and the terminal cwd in the details', async () => {
  const { a, b } = roots();
  const component = rootsReadiness({ roots: [a, b], terminalCwd: a });
  assert.equal(component.name, 'roots');
  assert.deepEqual(await component.probe(), { ready: true, status: 'ok', details: { roots: [a, b], missing: [], terminal_cwd: a } });
});

test('some roots missing: still ready, partial, naming them and how to create them', async () => {
  const { a, gone } = roots();
  assert.deepEqual(await rootsReadiness({ roots: [a, gone], terminalCwd: a }).probe(), {
    ready: true,
    status: 'partial',
    reason: `project roots that do not exist admit nothing: ${gone}`,
    action: `create it (mkdir -p ${gone}) or set HERMES_MCP_ROOTS to your existing project directories`,
    details: { roots: [a, gone], missing: [gone], terminal_cwd: a },
  });
});

test('no root exists: not ready, missing, quoting HERMES_MCP_ROOTS as configured', async () => {
  const { file, gone } = roots();
  assert.deepEqual(await rootsReadiness({ roots: [gone, file], terminalCwd: '/' }).probe(), {
    ready: false,
    status: 'missing',
    reason: `no project root exists (HERMES_MCP_ROOTS=${gone}:${file}): file tools, jobs and cron workdirs have nowhere to work`,
    action: `create them (mkdir -p ${gone} ${file}) or set HERMES_MCP_ROOTS to your existing project directories`,
    details: { roots: [gone, file], missing: [gone, file], terminal_cwd: '/' },
  });
});

test('the probe looks again each time: a root created later makes it ready', async () => {
  const { a, gone } = roots();
  const component = rootsReadiness({ roots: [gone], terminalCwd: a });
  assert.equal((await component.probe()).ready, false);
  mkdirSync(gone);
  assert.equal((await component.probe()).status, 'ok');
});
