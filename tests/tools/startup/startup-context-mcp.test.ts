import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { StartupFile } from '../../../supervisor/tools/startup/read.js';
import { call, connect, ERAS, startTestGateway, type Era, type TestGateway } from '../../helpers/gateway.js';

// The gateway-owned public tools through the real HTTP endpoint, with real SDK v2 clients in both
// protocol eras: startup_context, skills_list, and memory_context without a Honcho configuration
// (tests/tools/memory/ covers it with one).

/** What arrives over the wire is the tool's own result shape. */
type WireStartupFile = StartupFile;

/** A fresh gateway (its own HERMES_HOME, so a test may break it) and a connected client. */
async function withClient(era: Era, fn: (gw: TestGateway, client: Awaited<ReturnType<typeof connect>>) => Promise<void>): Promise<void> {
  const gw = await startTestGateway();
  try {
    const client = await connect(gw.mcpUrl, era);
    try {
      await fn(gw, client);
    } finally {
      await client.close();
    }
  } finally {
    await gw.close();
  }
}

for (const era of ERAS) {
  describe(`${era} era: gateway-owned public tools over HTTP`, () => {
    test('startup_context returns the four files, each with the sha256 and mtime of the file on disk', async () => {
      await withClient(era, async (gw, client) => {
        const { data, isError } = await call(client, 'startup_context');
        assert.equal(isError, false, JSON.stringify(data));
        const files = data.files as WireStartupFile[];
        assert.deepEqual(files.map((f) => f.name), ['.hermes.md', 'SOUL.md', 'MEMORY.md', 'USER.md']);
        const paths = [join(gw.home, '.hermes.md'), join(gw.home, 'SOUL.md'), join(gw.home, 'memories', 'MEMORY.md'), join(gw.home, 'memories', 'USER.md')];
        let total = 0;
        files.forEach((file, i) => {
          const raw = fs.readFileSync(paths[i]!);
          const mtimeMs = Number(fs.statSync(paths[i]!, { bigint: true }).mtimeNs / 1_000_000n);
          total += raw.length;
          assert.equal(file.path, paths[i]);
          assert.equal(file.present, true, file.name);
          assert.equal(file.bytes, raw.length, file.name);
          assert.equal(file.sha256, createHash('sha256').update(raw).digest('hex'), file.name);
          assert.equal(file.mtime_ms, mtimeMs, file.name);
          assert.equal(file.mtime, new Date(mtimeMs).toISOString(), file.name);
          assert.equal(file.content, raw.toString('utf8'), file.name);
        });
        assert.equal(data.total_bytes, total);
      });
    });

    test('startup_context refuses any argument with INVALID_ARGUMENTS, without reading', async () => {
      await withClient(era, async (gw, client) => {
        // With SOUL.md gone, any read answers STARTUP_FILE_MISSING: INVALID_ARGUMENTS proves none happened.
        fs.rmSync(join(gw.home, 'SOUL.md'));
        const refused = await call(client, 'startup_context', { path: '/etc/passwd' });
        assert.equal(refused.isError, true);
        assert.equal(refused.data.error, 'INVALID_ARGUMENTS', JSON.stringify(refused.data));
        assert.ok(!JSON.stringify(refused.result).includes('root:'), 'nothing from /etc/passwd');
        // Control: without the argument the same gateway does read, and says so.
        const read = await call(client, 'startup_context');
        assert.equal(read.isError, true);
        assert.equal(read.data.error, 'STARTUP_FILE_MISSING', JSON.stringify(read.data));
      });
    });

    test('startup_context refuses a symlinked MEMORY.md with STARTUP_FILE_SYMLINK', async () => {
      await withClient(era, async (gw, client) => {
        const target = join(gw.home, 'elsewhere.md');
        fs.writeFileSync(target, 'not a startup file: do not serve me\n');
        const memory = join(gw.home, 'memories', 'MEMORY.md');
        fs.rmSync(memory);
        fs.symlinkSync(target, memory);
        const { data, isError, result } = await call(client, 'startup_context');
        assert.equal(isError, true);
        assert.equal(data.error, 'STARTUP_FILE_SYMLINK', JSON.stringify(data));
        assert.match(String(data.message), /MEMORY\.md/);
        assert.ok(!JSON.stringify(result).includes('do not serve me'), 'the symlink target was not read');
      });
    });

    test('skills_list lists the demo skill', async () => {
      await withClient(era, async (_gw, client) => {
        const { data, isError } = await call(client, 'skills_list');
        assert.equal(isError, false, JSON.stringify(data));
        assert.deepEqual(data.skills, [{ name: 'demo', description: 'A demo skill', category: null }]);
        assert.equal(data.count, 1);
      });
    });

    test('memory_context without a Honcho configuration answers MEMORY_NOT_CONFIGURED as an isError result', async () => {
      await withClient(era, async (_gw, client) => {
        const { data, isError } = await call(client, 'memory_context', { query: 'what does the user prefer?' });
        assert.equal(isError, true);
        assert.equal(data.error, 'MEMORY_NOT_CONFIGURED', JSON.stringify(data));
      });
    });
  });
}
