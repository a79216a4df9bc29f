import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ErrorCode, GatewayError } from '../../../shared/errors.js';
import { loadLimits, type Limits } from '../../../shared/limits.js';
import type { CallContext } from '../../../supervisor/core/tool-types.js';
import { compileArgumentValidator } from '../../../supervisor/core/catalog/catalog.js';
import { loadConfig } from '../../../supervisor/platform/config.js';
import {
  readStartupContext,
  startupContextTool,
  startupReadiness,
  type StartupConfig,
  type StartupContext,
} from '../../../supervisor/tools/startup/startup-context.js';

const ctx: CallContext = { owner: { id: 'request:t', kind: 'request' }, signal: new AbortController().signal, callId: 't', era: 'modern', callNested: () => Promise.reject(new Error('nested calls are not part of this test')) };

let base: string;
let counter = 0;

before(() => {
  base = fs.mkdtempSync(join(os.tmpdir(), 'startup-context-test-'));
});
after(() => {
  fs.rmSync(base, { recursive: true, force: true });
});

interface Fixture {
  home: string;
  project: string;
  config: StartupConfig;
}

/** A fresh HERMES_HOME + project dir; `files` maps relative paths (under home, or `project/`) to content. */
function fixture(files: Record<string, string | Buffer> = {}, limits: Partial<Limits> = {}): Fixture {
  const root = join(base, `case-${++counter}`);
  const home = join(root, 'home');
  const project = join(root, 'project');
  fs.mkdirSync(home, { recursive: true });
  fs.mkdirSync(project, { recursive: true });
  for (const [rel, content] of Object.entries(files)) {
    const path = rel.startsWith('project/') ? join(project, rel.slice('project/'.length)) : join(home, rel);
    fs.mkdirSync(join(path, '..'), { recursive: true });
    fs.writeFileSync(path, content);
  }
  const config = loadConfig({ HERMES_HOME: home, HERMES_MCP_PROJECT_DIR: project }, { limits: loadLimits({}, limits) });
  return { home, project, config };
}

async function expectCode(promise: Promise<unknown>, code: ErrorCode): Promise<GatewayError> {
  try {
    await promise;
  } catch (e) {
    assert.ok(e instanceof GatewayError, `expected GatewayError, got ${String(e)}`);
    assert.equal(e.code, code, e.message);
    return e;
  }
  assert.fail(`expected ${code}, but the call succeeded`);
}

const ALL = {
  'project/.hermes.md': '# Project\nuse tabs\n',
  'SOUL.md': 'You are Hermes.\n',
  'memories/MEMORY.md': 'likes tea\n§\nworks on gateway\n',
  'memories/USER.md': 'Name: Ada — ünïcödé\n',
};

describe('startup_context tool', () => {
  test('happy path: all four files in fixed order with sha256 of the raw bytes, size and mtime', async () => {
    const f = fixture(ALL);
    const mtime = new Date('2024-05-06T07:08:09.000Z');
    fs.utimesSync(join(f.home, 'SOUL.md'), mtime, mtime);
    const out = await startupContextTool(f.config).handler({}, ctx);
    const result = out.structured as unknown as StartupContext;
    assert.deepEqual(
      result.files.map((x) => x.name),
      ['.hermes.md', 'SOUL.md', 'MEMORY.md', 'USER.md'],
    );
    const paths = [join(f.project, '.hermes.md'), join(f.home, 'SOUL.md'), join(f.home, 'memories', 'MEMORY.md'), join(f.home, 'memories', 'USER.md')];
    let total = 0;
    result.files.forEach((file, i) => {
      const raw = fs.readFileSync(paths[i]!);
      total += raw.length;
      assert.equal(file.path, paths[i]);
      assert.equal(file.present, true);
      assert.equal(file.bytes, raw.length);
      assert.equal(file.sha256, createHash('sha256').update(raw).digest('hex'));
      assert.equal(file.content, raw.toString('utf8'));
    });
    assert.equal(result.total_bytes, total);
    const soul = result.files[1]!;
    assert.equal(soul.mtime, mtime.toISOString());
    assert.equal(soul.mtime_ms, mtime.getTime());
  });

  test('a missing optional file is reported present:false without content', async () => {
    const { 'memories/USER.md': _omit, ...rest } = ALL;
    const f = fixture(rest);
    const result = await readStartupContext(f.config);
    const user = result.files.find((x) => x.name === 'USER.md')!;
    assert.deepEqual(user, { name: 'USER.md', path: join(f.home, 'memories', 'USER.md'), present: false });
    assert.equal(result.files.filter((x) => x.present).length, 3);
  });

  test('a missing SOUL.md fails with STARTUP_FILE_MISSING naming the path', async () => {
    const { 'SOUL.md': _omit, ...rest } = ALL;
    const f = fixture(rest);
    const e = await expectCode(readStartupContext(f.config), ErrorCode.STARTUP_FILE_MISSING);
    assert.match(e.message, new RegExp(join(f.home, 'SOUL.md').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  });

  test('a symlinked startup file is refused', async () => {
    const f = fixture({ 'SOUL.md': 'soul\n', 'elsewhere.md': 'secret stuff\n' });
    fs.mkdirSync(join(f.home, 'memories'));
    fs.symlinkSync(join(f.home, 'elsewhere.md'), join(f.home, 'memories', 'MEMORY.md'));
    const e = await expectCode(readStartupContext(f.config), ErrorCode.STARTUP_FILE_SYMLINK);
    assert.match(e.message, /MEMORY\.md/);
  });

  test('a symlinked memories directory is refused', async () => {
    const f = fixture({ 'SOUL.md': 'soul\n', 'real-memories/MEMORY.md': 'm\n' });
    fs.symlinkSync(join(f.home, 'real-memories'), join(f.home, 'memories'));
    const e = await expectCode(readStartupContext(f.config), ErrorCode.STARTUP_FILE_SYMLINK);
    assert.match(e.message, /memories/);
  });

  test('a FIFO is refused as not a regular file (without blocking on open)', async () => {
    const f = fixture({ 'SOUL.md': 'soul\n' });
    fs.mkdirSync(join(f.home, 'memories'));
    const fifo = join(f.home, 'memories', 'USER.md');
    execFileSync('mkfifo', [fifo]);
    const call = expectCode(readStartupContext(f.config), ErrorCode.STARTUP_FILE_NOT_REGULAR);
    let timer: NodeJS.Timeout | undefined;
    const blocked = new Promise<'blocked'>((resolve) => {
      timer = setTimeout(() => resolve('blocked'), 3000);
    });
    const outcome = await Promise.race([call, blocked]);
    clearTimeout(timer);
    if (outcome === 'blocked') {
      // Release the reader stuck in open() so the process can exit, then fail.
      try {
        fs.closeSync(fs.openSync(fifo, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK));
      } catch {
        // no reader was waiting
      }
      await call.catch(() => undefined);
      assert.fail('open() of a FIFO blocked: it must be opened with O_NONBLOCK');
    }
    assert.match(outcome.message, /USER\.md/);
  });

  test('a startup file that cannot be opened for another reason is STARTUP_FILE_UNREADABLE, with the cause', async () => {
    // ENAMETOOLONG: fails open() even for root, unlike a chmod 000 file.
    const f = fixture({ 'SOUL.md': 'soul\n' });
    const project = join(f.project, 'p'.repeat(300));
    const config: StartupConfig = { ...f.config, projectDir: project };
    const e = await expectCode(readStartupContext(config), ErrorCode.STARTUP_FILE_UNREADABLE);
    assert.match(e.message, /\.hermes\.md/);
    assert.match(e.message, /ENAMETOOLONG/);
  });

  test('a memories directory that cannot be inspected is STARTUP_FILE_UNREADABLE', async () => {
    const f = fixture({ 'SOUL.md': 'soul\n' });
    const config: StartupConfig = { ...f.config, hermesHome: join(f.home, 'h'.repeat(300)) };
    const e = await expectCode(readStartupContext(config), ErrorCode.STARTUP_FILE_UNREADABLE);
    assert.match(e.message, /memories/);
    assert.match(e.message, /ENAMETOOLONG/);
  });

  test('a directory in place of a file is refused as not regular', async () => {
    const f = fixture({ 'SOUL.md': 'soul\n' });
    fs.mkdirSync(join(f.project, '.hermes.md'));
    const e = await expectCode(readStartupContext(f.config), ErrorCode.STARTUP_FILE_NOT_REGULAR);
    assert.match(e.message, /\.hermes\.md/);
  });

  test('an oversized file is refused by its fstat size, citing size and limit', async () => {
    // Invalid UTF-8 too: had any byte been read, the error would not be TOO_LARGE.
    const f = fixture({ 'SOUL.md': 'soul\n', 'memories/MEMORY.md': Buffer.alloc(200, 0xff) }, { startupMaxFileBytes: 100 });
    const e = await expectCode(readStartupContext(f.config), ErrorCode.STARTUP_FILE_TOO_LARGE);
    assert.match(e.message, /MEMORY\.md/);
    assert.match(e.message, /200 bytes/);
    assert.match(e.message, /startupMaxFileBytes=100/);
  });

  test('a 1 GiB sparse file is refused quickly without being read', { timeout: 20000 }, async () => {
    const f = fixture({ 'SOUL.md': 'soul\n' });
    const big = join(f.project, '.hermes.md');
    fs.writeFileSync(big, '');
    fs.truncateSync(big, 1024 ** 3);
    const rssBefore = process.memoryUsage().rss;
    const started = performance.now();
    const e = await expectCode(readStartupContext(f.config), ErrorCode.STARTUP_FILE_TOO_LARGE);
    const elapsed = performance.now() - started;
    assert.match(e.message, /1073741824 bytes/);
    assert.ok(elapsed < 1000, `took ${elapsed} ms`);
    assert.ok(process.memoryUsage().rss - rssBefore < 64 * 1024 * 1024, 'memory grew as if the file was read');
  });

  test('the total size over budget is refused before any content is read', async () => {
    // Each file fits, together they do not; SOUL.md holds invalid UTF-8 to prove nothing was read.
    const f = fixture(
      { 'SOUL.md': Buffer.alloc(60, 0xff), 'memories/MEMORY.md': 'm'.repeat(60) },
      { startupMaxFileBytes: 100, startupMaxTotalBytes: 100 },
    );
    const e = await expectCode(readStartupContext(f.config), ErrorCode.STARTUP_FILE_TOO_LARGE);
    assert.match(e.message, /total 120 bytes/);
    assert.match(e.message, /startupMaxTotalBytes=100/);
    assert.match(e.message, /SOUL\.md 60/);
  });

  test('invalid UTF-8 is refused', async () => {
    const f = fixture({ 'SOUL.md': Buffer.from([0x68, 0x69, 0xc3, 0x28]) });
    const e = await expectCode(readStartupContext(f.config), ErrorCode.STARTUP_FILE_INVALID_UTF8);
    assert.match(e.message, /SOUL\.md/);
  });

  test('an envelope over budget fails explicitly instead of returning a cut document', async () => {
    // 3000 control characters fit the byte limits but JSON-escape to 6 characters each.
    const f = fixture({ 'SOUL.md': 'soul\n', 'memories/USER.md': '\u0001'.repeat(3000) }, { startupMaxEnvelopeChars: 10000 });
    const e = await expectCode(startupContextTool(f.config).handler({}, ctx), ErrorCode.STARTUP_ENVELOPE_TOO_LARGE);
    assert.match(e.message, /startupMaxEnvelopeChars=10000/);
    assert.match(e.message, /USER\.md/);
  });

  test('the envelope budget is the smaller of startupMaxEnvelopeChars and maxOutputChars', async () => {
    const f = fixture({ 'SOUL.md': 'x'.repeat(3000) }, { startupMaxEnvelopeChars: 100000, maxOutputChars: 2000 });
    const e = await expectCode(readStartupContext(f.config), ErrorCode.STARTUP_ENVELOPE_TOO_LARGE);
    assert.match(e.message, /maxOutputChars=2000/);
  });

  test('a secret inside MEMORY.md is redacted', async () => {
    const secret = 'sk-proj-' + 'A1b2C3d4E5f6G7h8I9j0'.repeat(2);
    const f = fixture({ 'SOUL.md': 'soul\n', 'memories/MEMORY.md': `OPENAI_API_KEY=${secret}\nremember this\n` });
    const result = await readStartupContext(f.config);
    const memory = result.files.find((x) => x.name === 'MEMORY.md')!;
    assert.ok(!memory.content!.includes(secret), memory.content);
    assert.match(memory.content!, /remember this/);
    // The hash still describes the bytes on disk.
    assert.equal(memory.sha256, createHash('sha256').update(fs.readFileSync(join(f.home, 'memories', 'MEMORY.md'))).digest('hex'));
  });

  test('the schema refuses any argument, and so does the handler, before reading', async () => {
    const f = fixture({}); // no SOUL.md: a read would fail with STARTUP_FILE_MISSING
    const tool = startupContextTool(f.config);
    assert.deepEqual(tool.inputSchema, { type: 'object', properties: {}, additionalProperties: false });
    assert.deepEqual(
      { r: tool.annotations.readOnlyHint, d: tool.annotations.destructiveHint, o: tool.annotations.openWorldHint, i: tool.annotations.idempotentHint },
      { r: true, d: false, o: false, i: true },
    );
    const validate = compileArgumentValidator(tool);
    assert.throws(() => validate({ path: '/etc/passwd' }), (e: unknown) => e instanceof GatewayError && e.code === ErrorCode.INVALID_ARGUMENTS);
    await expectCode(tool.handler({ path: '/etc/passwd' }, ctx), ErrorCode.INVALID_ARGUMENTS);
  });

  test('readiness is ok and lists the present files', async () => {
    const { 'project/.hermes.md': _omit, ...rest } = ALL;
    const f = fixture(rest);
    const probe = await startupReadiness(f.config).probe();
    assert.deepEqual(probe, { ready: true, status: 'ok', details: { files: ['SOUL.md', 'MEMORY.md', 'USER.md'] } });
    assert.equal(startupReadiness(f.config).name, 'startup_files');
  });

  test('readiness fails with the error code and message as reason, without throwing', async () => {
    const f = fixture({ 'SOUL.md': 'soul\n', 'memories/MEMORY.md': 'x'.repeat(50) }, { startupMaxFileBytes: 10 });
    const probe = await startupReadiness(f.config).probe();
    assert.equal(probe.ready, false);
    assert.equal(probe.status, 'error');
    assert.match(probe.reason!, /^STARTUP_FILE_TOO_LARGE: .*MEMORY\.md.*startupMaxFileBytes=10/);
  });
});
