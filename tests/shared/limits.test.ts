import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { defaultLimits, envNameFor, limitText, loadLimits } from '../../shared/limits.js';
import { packageRoot } from '../../shared/package-root.js';

// The gateway's limits: policy/default-limits.json, then HERMES_MCP_* overrides, then explicit ones.

test('envNameFor turns a camelCase limit into its HERMES_MCP_ variable', () => {
  assert.equal(envNameFor('maxRequestBodyBytes'), 'HERMES_MCP_MAX_REQUEST_BODY_BYTES');
  assert.equal(envNameFor('ptyMaxCols'), 'HERMES_MCP_PTY_MAX_COLS');
  assert.equal(envNameFor('x'), 'HERMES_MCP_X');
});

test('limitText names the key, its value and its variable', () => {
  const limits = loadLimits({}, { maxOutputChars: 1234 });
  assert.equal(limitText(limits, 'maxOutputChars'), 'maxOutputChars=1234 (HERMES_MCP_MAX_OUTPUT_CHARS)');
});

test('defaultLimits is policy/default-limits.json without its comment, frozen and cached', () => {
  const raw = JSON.parse(readFileSync(join(packageRoot(), 'policy', 'default-limits.json'), 'utf8')) as Record<string, unknown>;
  delete raw.$comment;
  const d = defaultLimits();
  assert.deepEqual({ ...d }, raw);
  assert.equal(d.maxOutputChars, 65536);
  assert.ok(Object.isFrozen(d));
  assert.equal(defaultLimits(), d);
});

test('loadLimits applies environment overrides, then explicit overrides over them', () => {
  const env = { HERMES_MCP_MAX_OUTPUT_CHARS: '777', HERMES_MCP_SKILLS_MAX_FILES: '9', HERMES_MCP_SEARCH_MAX_LIMIT: '' };
  const limits = loadLimits(env, { skillsMaxFiles: 3 });
  assert.equal(limits.maxOutputChars, 777);
  assert.equal(limits.skillsMaxFiles, 3);
  assert.equal(limits.searchMaxLimit, defaultLimits().searchMaxLimit, 'an empty variable is unset');
  assert.ok(Object.isFrozen(limits));
  assert.deepEqual({ ...loadLimits({}) }, { ...defaultLimits() });
});

test('loadLimits refuses a variable that is not a positive safe integer, naming it and the text', () => {
  for (const text of ['0', '-1', '1.5', 'ten', '1e30', ' ']) {
    assert.throws(
      () => loadLimits({ HERMES_MCP_MAX_OUTPUT_CHARS: text }),
      { message: `HERMES_MCP_MAX_OUTPUT_CHARS must be a positive integer, got ${JSON.stringify(text)}` },
      text,
    );
  }
  assert.equal(loadLimits({ HERMES_MCP_MAX_OUTPUT_CHARS: '1e3' }).maxOutputChars, 1000);
});

test('loadLimits validates explicit overrides through the schema', () => {
  assert.throws(() => loadLimits({}, { maxOutputChars: 0 }), /^Error: invalid limits: maxOutputChars: /);
  assert.throws(() => loadLimits({}, { maxOutputChars: 2.5 }), /invalid limits: maxOutputChars: /);
});

test('a PTY default window may not exceed the maximum', () => {
  assert.equal(loadLimits({}, { ptyDefaultCols: 500, ptyMaxCols: 500 }).ptyDefaultCols, 500);
  assert.throws(() => loadLimits({ HERMES_MCP_PTY_DEFAULT_COLS: '501' }), {
    message: 'HERMES_MCP_PTY_DEFAULT_COLS (501) must not exceed HERMES_MCP_PTY_MAX_COLS (500)',
  });
  assert.throws(() => loadLimits({}, { ptyDefaultRows: 30, ptyMaxRows: 20 }), {
    message: 'HERMES_MCP_PTY_DEFAULT_ROWS (30) must not exceed HERMES_MCP_PTY_MAX_ROWS (20)',
  });
});

test('HTTP timeouts must keep keep-alive < headers <= request', () => {
  const ok = loadLimits({}, { httpKeepAliveTimeoutSeconds: 5, httpHeadersTimeoutSeconds: 6, httpRequestTimeoutSeconds: 6 });
  assert.equal(ok.httpHeadersTimeoutSeconds, 6);
  assert.throws(() => loadLimits({}, { httpKeepAliveTimeoutSeconds: 130, httpHeadersTimeoutSeconds: 130 }), {
    message: 'HERMES_MCP_HTTP_KEEP_ALIVE_TIMEOUT_SECONDS (130) must be less than HERMES_MCP_HTTP_HEADERS_TIMEOUT_SECONDS (130)',
  });
  assert.throws(() => loadLimits({ HERMES_MCP_HTTP_HEADERS_TIMEOUT_SECONDS: '301' }), {
    message: 'HERMES_MCP_HTTP_HEADERS_TIMEOUT_SECONDS (301) must not exceed HERMES_MCP_HTTP_REQUEST_TIMEOUT_SECONDS (300)',
  });
});
