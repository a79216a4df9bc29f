import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { packageRoot } from '../../shared/package-root.js';

// In a checkout the bins are on no PATH. Their usage texts say how to run them there: through the
// checkout's npm scripts or the built files, never `npx --no-install` (which installs the checkout
// into npm's cache as a package, running its build and native compiles inside the checkout). Each
// command they name runs, and running it changes nothing in the checkout.

const root = packageRoot();
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { bin: Record<string, string>; scripts: Record<string, string> };

function help(file: string): string {
  const r = spawnSync(process.execPath, [join(root, file), '--help'], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
}

/** What a build or an install would rewrite: the built bins and the native addon. */
function buildOutputs(): string {
  return [...Object.values(pkg.bin), 'build/Release/subreaper.node'].map((f) => `${f} ${existsSync(join(root, f)) ? statSync(join(root, f)).mtimeMs : 'absent'}`).join('\n');
}

test('no usage text advises npx; every built file and npm script they name exists', () => {
  for (const [bin, file] of Object.entries(pkg.bin)) {
    const usage = help(file);
    assert.doesNotMatch(usage, /npx/, bin);
    for (const [, named] of usage.matchAll(/node (dist\/\S+\.js)/g)) assert.ok(existsSync(join(root, named!)), `${bin} names ${named}`);
    for (const [, script] of usage.matchAll(/npm run (\w+) --/g)) assert.ok(pkg.scripts[script!], `${bin} names npm run ${script}`);
  }
  assert.match(help(pkg.bin['hermes-mcp-gateway']!), /npm run gateway -- doctor, npm run admission -- --help, npm run auth -- --help/);
});

test("the checkout's npm scripts run each bin as built: its own --help, and nothing in the checkout changes", () => {
  const before = buildOutputs();
  for (const [script, bin] of [['gateway', 'hermes-mcp-gateway'], ['admission', 'hermes-mcp-admission'], ['auth', 'hermes-mcp-auth']] as const) {
    const r = spawnSync('npm', ['run', '-s', script, '--', '--help'], { cwd: root, encoding: 'utf8', env: { ...process.env, npm_config_update_notifier: 'false' } });
    assert.equal(r.status, 0, `${script}: ${r.stderr}`);
    assert.equal(r.stdout, help(pkg.bin[bin]!), `npm run ${script} is ${bin}`);
  }
  assert.equal(buildOutputs(), before);
});
