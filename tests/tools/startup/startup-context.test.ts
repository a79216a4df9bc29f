import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { ErrorCode, GatewayError } from '../../../shared/errors.js';
import { compileArgumentValidator } from '../../../supervisor/core/catalog/catalog.js';
import { redactOutcome } from '../../../supervisor/core/result.js';
import type { ToolDefinition } from '../../../supervisor/core/tool-types.js';
import type { StartupContext } from '../../../supervisor/tools/startup/read.js';
import { startupContextTool, startupReadiness } from '../../../supervisor/tools/startup/startup-context.js';
import { ALL, ctx, expectCode, fixtures } from './fixture.js';

const fixture = fixtures();

/** The tool's answer as the pipeline makes it: the handler's facts, redacted, then its afterRedaction step. */
async function asSent(tool: ToolDefinition): Promise<StartupContext> {
  const outcome = redactOutcome(tool.redaction, await tool.handler({}, ctx), tool.afterRedaction);
  return outcome.structured as unknown as StartupContext;
}

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

  test('an envelope over budget fails explicitly instead of returning a cut document', async () => {
    // 3000 control characters fit the byte limits but JSON-escape to 6 characters each.
    const f = fixture({ 'SOUL.md': 'soul\n', 'memories/USER.md': '\u0001'.repeat(3000) }, { startupMaxEnvelopeChars: 10000 });
    const e = await expectCode(asSent(startupContextTool(f.config)), ErrorCode.STARTUP_ENVELOPE_TOO_LARGE);
    assert.match(e.message, /startupMaxEnvelopeChars=10000/);
    assert.match(e.message, /USER\.md/);
  });

  test('the envelope budget is the smaller of startupMaxEnvelopeChars and maxOutputChars', async () => {
    const f = fixture({ 'SOUL.md': 'x'.repeat(3000) }, { startupMaxEnvelopeChars: 100000, maxOutputChars: 2000 });
    const e = await expectCode(asSent(startupContextTool(f.config)), ErrorCode.STARTUP_ENVELOPE_TOO_LARGE);
    assert.match(e.message, /maxOutputChars=2000/);
  });

  test('the budget holds the redacted envelope: a result that fits once redacted is served', async () => {
    // The raw envelope is over budget; redaction masks the key to a few characters, and what the
    // client receives fits.
    const secret = 'sk-proj-' + 'A1b2C3d4E5f6G7h8I9j0'.repeat(40);
    const f = fixture({ 'SOUL.md': `OPENAI_API_KEY=${secret}\n` }, { startupMaxEnvelopeChars: 800 });
    const tool = startupContextTool(f.config);
    const raw = (await tool.handler({}, ctx)).structured!;
    assert.ok(JSON.stringify(raw).length > 800, 'the raw envelope is over budget');
    const sent = await asSent(tool);
    assert.ok(!JSON.stringify(sent).includes(secret));
    assert.equal((await startupReadiness(f.config).probe()).ready, true);
  });

  test('a secret inside MEMORY.md is redacted', async () => {
    const secret = 'sk-proj-' + 'A1b2C3d4E5f6G7h8I9j0'.repeat(2);
    const f = fixture({ 'SOUL.md': 'soul\n', 'memories/MEMORY.md': `OPENAI_API_KEY=${secret}\nremember this\n` });
    const result = await asSent(startupContextTool(f.config));
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
