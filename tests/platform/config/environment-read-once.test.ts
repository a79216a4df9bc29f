import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { packageRoot } from '../../../shared/package-root.js';

// The gateway reads its environment in one place: supervisor/platform/config.ts's loadConfig(env), which
// bin/gateway.ts reaches through loadGatewayConfig(process.env) (supervisor/platform/environment.ts adds
// $HERMES_HOME/.env under it). Everything else gets named fields of the configuration (or
// config.inheritedEnvironment, the one snapshot children's environments are built from), so no
// module can silently depend on the real environment and every test can say what it sets.
// scripts/, the operator bins (bin/admission.ts, bin/auth.ts) and workers/ (child processes) read
// their own environments.

const ENVIRONMENT_READS = [
  /\bprocess\s*\.\s*env\b/g,
  /\bprocess\s*\[\s*['"`]env['"`]\s*\]/g,
  /import\s*\{[^}]*\benv\b[^}]*\}\s*from\s*['"](?:node:)?process['"]/g,
];
/** The entry points (the gateway, and the hermes-mcp-lsp stdio server): each one mention is the hand-over to loadConfig. */
const HAND_OVER: Record<string, string> = { [join('bin', 'gateway.ts')]: 'loadGatewayConfig(process.env)', [join('bin', 'lsp.ts')]: 'loadConfig(process.env)' };
/** The gateway bin's `doctor` subcommand gets the same environment, handed over the same way (it calls loadConfig itself). */
const DOCTOR_HAND_OVER = 'doctorMain(process.argv.slice(3), process.env)';

function sourceFiles(dir: string): string[] {
  const root = packageRoot();
  return (readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' }) as string[])
    .filter((f) => f.endsWith('.ts'))
    .map((f) => join(dir, f));
}

test('only supervisor/platform/config.ts reads the environment (bin/gateway.ts hands it process.env); nothing else under supervisor/ or shared/ does', () => {
  const files = [...sourceFiles('supervisor'), ...sourceFiles('shared'), ...Object.keys(HAND_OVER)];
  assert.ok(files.includes(join('supervisor', 'platform', 'config.ts')) && files.length > 50, 'the source tree is there to scan');
  const offenders: string[] = [];
  for (const file of files) {
    if (file === join('supervisor', 'platform', 'config.ts')) continue;
    let text = readFileSync(join(packageRoot(), file), 'utf8');
    const handOver = HAND_OVER[file];
    if (handOver) {
      assert.equal(text.split(handOver).length - 1, 1, `${file} hands process.env to loadConfig once`);
      text = text.replace(handOver, '').replace(DOCTOR_HAND_OVER, '');
    }
    for (const re of ENVIRONMENT_READS) {
      for (const m of text.matchAll(re)) offenders.push(`${file}:${text.slice(0, m.index).split('\n').length}: ${m[0]}`);
    }
  }
  assert.deepEqual(offenders, [], 'read the setting in loadConfig and pass it down as a GatewayConfig field');
});
