import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { lspStatus, lspStatusTool } from '../../../../supervisor/tools/lsp/status/index.js';
import { tempDirs } from '../../../helpers/temp.js';
import { ctx, lspStandIn } from '../stand-in.js';

const temp = tempDirs();
after(() => temp.removeAll());

test('lsp_status: trusted roots; each server installed or not (with its install command), its running sessions; the worker', async () => {
  const startedAt = Date.parse('2025-01-01T00:00:00Z');
  const s = lspStandIn(temp, {
    running: [{ server: 'typescript', root: '/p', pid: 42, state: 'ready', startedAt, lastUsedAt: Date.now() - 5500 }],
    workerPid: 7,
    starts: 2,
    lastFailure: 'exit 1',
  });
  const status = lspStatus(s.deps);
  assert.deepEqual(status.trusted_roots, [s.project]);
  const servers = status.servers as Array<Record<string, unknown>>;
  const ts = servers.find((x) => x.name === 'typescript')!;
  assert.deepEqual({ ...ts, running: undefined }, { name: 'typescript', command: ['typescript-language-server', '--stdio'], extensions: ts.extensions, installed: true, program: join(s.bin, 'typescript-language-server'), running: undefined });
  const [session] = ts.running as Array<Record<string, unknown>>;
  assert.deepEqual({ ...session, idle_seconds: undefined }, { root: '/p', pid: 42, state: 'ready', started_at: '2025-01-01T00:00:00.000Z', idle_seconds: undefined });
  assert.ok(session!.idle_seconds === 5 || session!.idle_seconds === 6, String(session!.idle_seconds));
  const others = servers.filter((x) => x.name !== 'typescript');
  assert.ok(others.length > 0);
  for (const other of others) assert.deepEqual([other.installed, other.program, typeof other.install, other.running], [false, null, 'string', []]);
  assert.deepEqual(status.worker, { running: true, pid: 7, starts: 2, last_failure: 'exit 1' });

  const tool = lspStatusTool(s.deps);
  assert.equal(tool.name, 'lsp_status');
  assert.deepEqual((await tool.handler({}, ctx)).structured?.trusted_roots, [s.project]);
  assert.deepEqual(lspStatus(lspStandIn(temp).deps).worker, { running: false, pid: null, starts: 0 });
});
