import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { packageRoot } from '../../shared/package-root.js';
import { makeFakeSystemctl } from '../helpers/fake-systemctl.js';
import { runGatewayBin } from '../helpers/gateway-bin.js';
import { tempDirs } from '../helpers/temp.js';

// doctor's fixes say the thing to do: a missing Hermes home is created (not the job database
// moved), a graph with no project root gets a root created, and a component already declared
// optional is not told to be declared optional (a required one still is).

const MAIN = join(packageRoot(), 'dist', 'bin', 'gateway.js');
const temp = tempDirs();
after(() => temp.removeAll());

type Check = { name: string; level: string; reason: string; fix?: string };

async function doctor(env: Record<string, string>): Promise<Check[]> {
  const dir = temp.make('hmcp-advice-');
  const systemctl = makeFakeSystemctl(dir);
  mkdirSync(join(dir, 'state'), { mode: 0o700 });
  const result = await runGatewayBin(MAIN, { HOME: dir, HERMES_MCP_STATE_DIR: join(dir, 'state'), PATH: `${systemctl.bin}:/usr/bin:/bin`, CAMOFOX_URL: 'http://127.0.0.1:9', ...env }, ['doctor', '--json']);
  return (JSON.parse(result.stdout) as { checks: Check[] }).checks;
}

const find = (checks: Check[], name: string) => {
  const check = checks.find((c) => c.name === name);
  assert.ok(check, `${name} in ${JSON.stringify(checks)}`);
  return check;
};

test('a missing Hermes home: the fix is to create it, for the job database and the startup files', async () => {
  const home = join(temp.make('hmcp-advice-parent-'), 'hermes');
  const checks = await doctor({ HERMES_HOME: home, HERMES_MCP_ROOTS: '/tmp' });
  const jobs = find(checks, 'job_database');
  assert.equal(jobs.level, 'fail');
  assert.match(jobs.fix ?? '', new RegExp(`^create the Hermes home ${home}`));
  assert.doesNotMatch(jobs.fix ?? '', /HERMES_MCP_JOBS_DATABASE/);
  assert.match(find(checks, 'startup_files').fix ?? '', new RegExp(`^create the Hermes home ${home}: .*mkdir -m 700 -p ${home}`));
  // A job database elsewhere whose directory is missing: create that directory.
  const other = join(temp.make('hmcp-advice-db-'), 'sub', 'jobs.sqlite3');
  const elsewhere = find(await doctor({ HERMES_HOME: home, HERMES_MCP_ROOTS: '/tmp', HERMES_MCP_JOBS_DATABASE: other }), 'job_database');
  assert.match(elsewhere.fix ?? '', new RegExp(`^create its directory \\(mkdir -m 700 -p ${join(other, '..')}\\)`));
});

test('GRAPH_NO_ROOT: the fix is to create a root', async () => {
  const home = temp.make('hmcp-advice-home-');
  writeFileSync(join(home, 'SOUL.md'), '# Soul\n');
  const root = join(home, 'no-such-root');
  const graph = find(await doctor({ HERMES_HOME: home, HERMES_MCP_ROOTS: root }), 'graph');
  assert.match(graph.reason, /GRAPH_NO_ROOT/);
  assert.match(graph.fix ?? '', new RegExp(`^create it \\(mkdir -p ${root}\\) or set HERMES_MCP_ROOTS`));
});

test('no "declare it optional" advice for a component already optional; a required one keeps it', async () => {
  const home = temp.make('hmcp-advice-home-');
  writeFileSync(join(home, 'SOUL.md'), '# Soul\n');
  const optional = ['memory', 'lsp', 'graph', 'browser', 'hermes_tools', 'web_provider'];
  const checks = await doctor({ HERMES_HOME: home, HERMES_MCP_ROOTS: home, HERMES_MCP_OPTIONAL_COMPONENTS: optional.join(',') });
  for (const name of optional) {
    const check = find(checks, name);
    assert.equal(check.level, 'warn', JSON.stringify(check));
    assert.match(check.reason, /optional here/);
    assert.doesNotMatch(check.fix ?? '', /HERMES_MCP_OPTIONAL_COMPONENTS/, `${name}: ${check.fix}`);
    assert.ok((check.fix ?? '').length > 0, `${name} still says what would make it work`);
  }
  const required = await doctor({ HERMES_HOME: home, HERMES_MCP_ROOTS: home, HERMES_MCP_OPTIONAL_COMPONENTS: 'lsp,graph,hermes_tools,web_provider' });
  for (const name of ['memory', 'browser']) {
    const check = find(required, name);
    assert.equal(check.level, 'fail');
    assert.match(check.fix ?? '', new RegExp(`HERMES_MCP_OPTIONAL_COMPONENTS=${name}`));
  }
});
