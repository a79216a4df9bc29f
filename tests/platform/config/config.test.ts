import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { defaultLimits, loadLimits } from '../../../shared/limits.js';
import { resolveInsideRoots } from '../../../supervisor/platform/roots.js';
import { ConfigError, loadConfig } from '../../../supervisor/platform/config.js';
import { startGateway } from '../../../supervisor/compose/index.js';
import { createLogger } from '../../../supervisor/platform/telemetry.js';

test('a non-loopback bind is refused at startup with a clear error', async () => {
  for (const host of ['0.0.0.0', '::', '192.168.1.10', 'example.com']) {
    assert.throws(() => loadConfig({ HERMES_MCP_HOST: host }), (e: unknown) => e instanceof ConfigError && /not a loopback address/.test((e as Error).message));
  }
  // A throwaway HERMES_HOME even though the bind is refused first: no test may resolve the live job database.
  const config = { ...loadConfig({ HERMES_HOME: join(tmpdir(), 'hmcp-never-created'), HERMES_MCP_PORT: '0' }), host: '0.0.0.0' };
  await assert.rejects(startGateway({ config, log: createLogger('silent') }), /non-loopback/);
});

test('HERMES_MCP_PORT overrides the port; garbage is refused', () => {
  assert.equal(loadConfig({ HERMES_MCP_PORT: '4000' }).port, 4000);
  assert.throws(() => loadConfig({ HERMES_MCP_PORT: 'abc' }), ConfigError);
});

test('HERMES_MCP_ROOTS is colon-separated absolute paths; relative entries are refused', () => {
  assert.deepEqual(loadConfig({ HERMES_MCP_ROOTS: '/srv/a:/srv/b' }).roots, ['/srv/a', '/srv/b']);
  assert.throws(() => loadConfig({ HERMES_MCP_ROOTS: '/srv/a:relative' }), /absolute/);
});

test('every limit is named, has its default in policy/, and can be overridden by HERMES_MCP_<NAME>', () => {
  const d = defaultLimits();
  assert.equal(loadLimits({ HERMES_MCP_MAX_REQUEST_BODY_BYTES: '1024' }).maxRequestBodyBytes, 1024);
  assert.equal(loadLimits({ HERMES_MCP_SESSION_TOKEN_TTL_SECONDS: '60' }).sessionTokenTtlSeconds, 60);
  assert.equal(loadLimits({}).maxOutputChars, d.maxOutputChars);
  assert.throws(() => loadLimits({ HERMES_MCP_MAX_OUTPUT_CHARS: '-5' }), /positive integer/);
  assert.throws(() => loadLimits({ HERMES_MCP_MAX_OUTPUT_CHARS: '1.5' }), /positive integer/);
});

test('paths are checked against the roots after realpath: a symlink escaping a root is refused', async () => {
  const base = mkdtempSync(join(tmpdir(), 'hmcp-roots-'));
  try {
    const root = join(base, 'work');
    mkdirSync(join(root, 'proj'), { recursive: true });
    mkdirSync(join(base, 'outside'));
    symlinkSync(join(base, 'outside'), join(root, 'escape'));
    symlinkSync(join(root, 'proj'), join(base, 'inward'));
    assert.equal(await resolveInsideRoots(join(root, 'proj'), [root]), join(root, 'proj'));
    assert.equal(await resolveInsideRoots(join(base, 'inward'), [root]), join(root, 'proj'), 'a link into a root is judged by its target');
    await assert.rejects(resolveInsideRoots(join(root, 'escape'), [root]), /outside the allowed roots/);
    await assert.rejects(resolveInsideRoots(join(root, 'proj', '..', '..', 'outside'), [root]), /outside the allowed roots/);
    await assert.rejects(resolveInsideRoots('proj', [root]), /absolute/);
    await assert.rejects(resolveInsideRoots(join(root + '-sibling'), [root]), /does not exist|outside/);
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});
