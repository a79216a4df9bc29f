import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ErrorCode, GatewayError } from '../../shared/errors.js';
import { assertScope, parseScopes, principalKey, scopeNeeded, SCOPE_FULL, SCOPE_READ, type Grant } from '../../supervisor/core/scopes.js';

// The two credential scopes: which tools read-only credentials may call, and the refusal otherwise.

const grant = (scopes: string[]): Grant => ({ kind: 'static', principal: 'ci', scopes, credential: 'static:ci' });

test('read-only tools need hermes:read; everything else, and anything unknown, hermes:full', () => {
  for (const tool of ['tool_search', 'tool_call', 'read_file', 'search_files', 'session_open', 'job_status']) assert.equal(scopeNeeded(tool, {}), SCOPE_READ, tool);
  for (const tool of ['terminal', 'write_file', 'patch', 'job_start', 'a_tool_added_later']) assert.equal(scopeNeeded(tool, {}), SCOPE_FULL, tool);
});

test('process_manage is read-only for list only, judged by its action argument', () => {
  assert.equal(scopeNeeded('process_manage', { action: 'list' }), SCOPE_READ);
  assert.equal(scopeNeeded('process_manage', { action: 'kill' }), SCOPE_FULL);
  assert.equal(scopeNeeded('process_manage', { action: 7 }), SCOPE_FULL);
  assert.equal(scopeNeeded('process_manage', null), SCOPE_FULL);
});

test('assertScope: full allows everything, read allows reads only, and the refusal names the scope needed', () => {
  assert.doesNotThrow(() => assertScope(grant([SCOPE_FULL]), 'terminal', {}));
  assert.doesNotThrow(() => assertScope(grant([SCOPE_READ]), 'read_file', {}));
  assert.throws(
    () => assertScope(grant([SCOPE_READ]), 'terminal', {}),
    (e: unknown) => e instanceof GatewayError && e.code === ErrorCode.SCOPE_INSUFFICIENT && e.details?.required_scope === SCOPE_FULL && /\(static ci\) has hermes:read/.test(e.message),
  );
  assert.throws(() => assertScope(grant([]), 'read_file', {}), /has no scope/);
});

test('parseScopes keeps only the two scopes; principalKey is kind and principal', () => {
  assert.deepEqual(parseScopes(' hermes:read  openid hermes:full '), [SCOPE_READ, SCOPE_FULL]);
  assert.deepEqual(parseScopes(undefined), []);
  assert.equal(principalKey(grant([])), 'static:ci');
});
