import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ErrorCode, GatewayError } from '../../../shared/errors.js';
import type { CallContext, ToolOutcome } from '../../../supervisor/core/tool-types.js';
import { acts, browserKit, noArgs, ok, readOnly, refArg, tooLarge } from '../../../supervisor/tools/browser/kit.js';
import type { BrowserCall, CamofoxSessions } from '../../../supervisor/tools/browser/session.js';

// What every browser tool is built with: the owner's turn, one budget per call, `success: false`
// on a failure, the ref and size checks. The Camofox sessions are a recording stand-in.

interface Recorded {
  exclusive: Array<{ owner: string; signal: AbortSignal }>;
  onTab: Array<{ owner: string; call: BrowserCall; method: string; suffix: string; action: string }>;
}

function sessions(json: Record<string, unknown> | undefined): { sessions: CamofoxSessions; recorded: Recorded } {
  const recorded: Recorded = { exclusive: [], onTab: [] };
  const fake = {
    settings: { commandTimeoutMs: 30_000, navigateTimeoutMs: 90_000 },
    exclusive<T>(owner: string, signal: AbortSignal, work: () => Promise<T>): Promise<T> {
      recorded.exclusive.push({ owner, signal });
      return work();
    },
    onTab(owner: string, call: BrowserCall, method: string, suffix: string, action: string) {
      recorded.onTab.push({ owner, call, method, suffix, action });
      return Promise.resolve({ status: 200, json });
    },
  };
  return { sessions: fake as unknown as CamofoxSessions, recorded };
}

function ctx(owner = 'owner-1'): CallContext {
  return { owner: { id: owner }, signal: new AbortController().signal, callId: 'c1', era: 'modern' } as unknown as CallContext;
}

test('refArg: @e5 and e5 are refs (trimmed); anything else is BROWSER_REF_INVALID pointing at browser_snapshot', () => {
  assert.equal(refArg(' @e5 '), 'e5');
  assert.equal(refArg('e123456'), 'e123456');
  for (const bad of ['e', 'e1234567', '#e5', 'button', 5]) {
    assert.throws(() => refArg(bad), (e: unknown) => e instanceof GatewayError && e.code === ErrorCode.BROWSER_REF_INVALID && e.message === `${JSON.stringify(String(bad))} is not an element ref: use a ref like @e5 from browser_snapshot` && e.details?.recovery === 'browser_snapshot', String(bad));
  }
  assert.throws(() => refArg('x'.repeat(100)), (e: unknown) => e instanceof GatewayError && e.message.startsWith(`${JSON.stringify('x'.repeat(40))} is not`));
});

test('tooLarge and ok: the shared refusal and success shapes', () => {
  const e = tooLarge('text', 12, 10, 'HERMES_MCP_BROWSER_TYPE_MAX_CHARS');
  assert.equal(e.code, ErrorCode.BROWSER_INPUT_TOO_LARGE);
  assert.equal(e.message, 'text is 12 characters; the limit is 10 (HERMES_MCP_BROWSER_TYPE_MAX_CHARS)');
  assert.deepEqual(ok({ url: 'u' }), { structured: { success: true, url: 'u' } });
  assert.deepEqual(ok({ success: false }), { structured: { success: false } });
  assert.equal(readOnly.readOnlyHint, true);
  assert.equal(acts.readOnlyHint, false);
  assert.deepEqual(noArgs, { type: 'object', properties: {}, additionalProperties: false });
});

test('snapshotText: GET /snapshot on the owner tab; a missing snapshot is empty, a missing count 0', async () => {
  const { sessions: s, recorded } = sessions({ snapshot: '- button "Go" [e1]', refsCount: '3' });
  const kit = browserKit(s);
  const call: BrowserCall = { signal: new AbortController().signal, budget: { endsAt: 0, ms: 0, name: 'x' } };
  assert.deepEqual(await kit.snapshotText(ctx('o2'), call), { snapshot: '- button "Go" [e1]', refsCount: 3 });
  assert.deepEqual(recorded.onTab.map((r) => [r.owner, r.method, r.suffix, r.action]), [['o2', 'GET', '/snapshot', 'browser_snapshot']]);
  assert.deepEqual(await browserKit(sessions(undefined).sessions).snapshotText(ctx(), call), { snapshot: '', refsCount: 0 });
  assert.deepEqual(await browserKit(sessions({ snapshot: 7 }).sessions).snapshotText(ctx(), call), { snapshot: '', refsCount: 0 });
});

test('tool: owned and lease-holding, run in the owner turn with the command or navigation budget', async () => {
  const { sessions: s, recorded } = sessions({});
  const kit = browserKit(s);
  assert.equal(kit.s, s.settings);
  const budgets: Array<{ ms: number; name: string }> = [];
  const run = (_args: Record<string, unknown>, _ctx: CallContext, call: BrowserCall): Promise<ToolOutcome> => {
    budgets.push({ ms: call.budget.ms, name: call.budget.name });
    return Promise.resolve(ok({}));
  };
  const schema = { type: 'object' as const, properties: { annotate: { type: 'boolean' } }, additionalProperties: false };
  const plain = kit.tool({ name: 'browser_x', description: 'd', inputSchema: schema, annotations: readOnly, run });
  const nav = kit.tool({ name: 'browser_navigate', description: 'd', inputSchema: schema, annotations: acts, run, budget: 'navigate' });
  assert.equal(plain.requiresOwner, true);
  assert.equal(plain.holdsLease, true);
  // Hermes' argument repair: a "true" string is the boolean there.
  assert.deepEqual(plain.coerceArguments?.({ annotate: 'true' }), { annotate: true });
  const c = ctx('o3');
  assert.deepEqual(await plain.handler({}, c), { structured: { success: true } });
  await nav.handler({}, c);
  assert.deepEqual(budgets, [{ ms: 30_000, name: 'browser.command_timeout' }, { ms: 90_000, name: 'browserNavigateTimeoutSeconds' }]);
  assert.deepEqual(recorded.exclusive.map((e) => [e.owner, e.signal === c.signal]), [['o3', true], ['o3', true]]);
});

test('tool: a GatewayError keeps its code and details and says success: false; other errors pass unchanged', async () => {
  const kit = browserKit(sessions({}).sessions);
  const failing = (error: Error) => kit.tool({ name: 'browser_y', description: 'd', inputSchema: noArgs, annotations: acts, run: () => Promise.reject(error) });
  await assert.rejects(failing(new GatewayError(ErrorCode.BROWSER_REF_INVALID, 'bad ref', { recovery: 'browser_snapshot' })).handler({}, ctx()), (e: unknown) => {
    assert.ok(e instanceof GatewayError);
    assert.equal(e.code, ErrorCode.BROWSER_REF_INVALID);
    assert.equal(e.message, 'bad ref');
    assert.deepEqual(e.details, { success: false, recovery: 'browser_snapshot' });
    return true;
  });
  const plain = new TypeError('boom');
  await assert.rejects(failing(plain).handler({}, ctx()), (e: unknown) => e === plain);
});
