import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pino } from 'pino';
import { ErrorCode, GatewayError } from '../../../../shared/errors.js';
import { loadLimits } from '../../../../shared/limits.js';
import type { CallContext } from '../../../../supervisor/core/tool-types.js';
import type { MemoryState } from '../../../../supervisor/tools/memory/calls.js';
import type { HonchoSettings } from '../../../../supervisor/tools/memory/config.js';
import { HonchoBackend } from '../../../../supervisor/tools/memory/honcho.js';
import { MutationLedger } from '../../../../supervisor/tools/memory/ledger.js';
import { profileTool } from '../../../../supervisor/tools/memory/profile/index.js';
import { honchoStandinForFile } from '../../../fixtures/honcho-standin.js';

// memory_profile against the Honcho stand-in: the read observer's card of the user, else the
// user's own card, else an empty card with a hint.

const honcho = honchoStandinForFile();

const HINT = 'No profile facts yet: this is not an error. Honcho builds the peer card over time from observed Hermes conversations; try memory_search or memory_reasoning.';

function deps(state: MemoryState) {
  return { state, limits: loadLimits({}), ledger: new MutationLedger(), log: pino({ level: 'silent' }) };
}

function configured(workspace: string, readObserver: string): MemoryState {
  const settings: HonchoSettings = {
    identity: { host: 'hermes', workspace, userPeer: 'ada', assistantPeer: 'chatgpt', session: 'proj' },
    baseURL: honcho().url,
    apiKeySource: 'none',
    reasoningLevel: 'low',
    reasoningDynamic: true,
    readObserver,
    hermesPeer: 'hermes',
    source: 'environment',
    warnings: [],
  };
  return { kind: 'configured', backend: new HonchoBackend(settings, 10_000) };
}

function ctx(): CallContext {
  return { owner: { id: 'o' }, signal: new AbortController().signal, callId: 'c', era: 'modern' } as unknown as CallContext;
}

async function profile(state: MemoryState): Promise<Record<string, unknown>> {
  const outcome = await profileTool(deps(state)).handler({}, ctx());
  return outcome.structured as Record<string, unknown>;
}

test('the definition: memory_profile, no arguments, read-only, holding the lease', () => {
  const tool = profileTool(deps({ kind: 'not_configured', reason: 'r' }));
  assert.equal(tool.name, 'memory_profile');
  assert.deepEqual(tool.inputSchema, { type: 'object', properties: {}, additionalProperties: false });
  assert.equal(tool.annotations.readOnlyHint, true);
  assert.equal(tool.holdsLease, true);
});

test("Hermes' peer's card of the user, with the identity that answered", async () => {
  honcho().seed({ workspace: 'ws-observed', peers: ['ada', 'hermes'], cards: [{ observer: 'hermes', observed: 'ada', card: ['Name: Ada'] }, { observer: 'ada', observed: 'ada', card: ['own'] }] });
  assert.deepEqual(await profile(configured('ws-observed', 'hermes')), { workspace: 'ws-observed', user_peer: 'ada', assistant_peer: 'chatgpt', card: ['Name: Ada'] });
});

test("an empty observed card falls back to the user's own; a user observer reads its own card directly", async () => {
  honcho().seed({ workspace: 'ws-own', peers: ['ada', 'hermes'], cards: [{ observer: 'hermes', observed: 'ada', card: [] }, { observer: 'ada', observed: 'ada', card: ['Prefers pnpm'] }] });
  assert.deepEqual((await profile(configured('ws-own', 'hermes'))).card, ['Prefers pnpm']);
  assert.deepEqual((await profile(configured('ws-own', 'ada'))).card, ['Prefers pnpm']);
});

test('no card at all: an empty card and the hint', async () => {
  honcho().seed({ workspace: 'ws-empty', peers: ['ada', 'hermes'] });
  assert.deepEqual(await profile(configured('ws-empty', 'hermes')), { workspace: 'ws-empty', user_peer: 'ada', assistant_peer: 'chatgpt', card: [], hint: HINT });
});

test('without a usable configuration: MEMORY_NOT_CONFIGURED or MEMORY_CONFIG_INVALID with the reason', async () => {
  await assert.rejects(profile({ kind: 'not_configured', reason: 'no honcho.json' }), (e: unknown) => e instanceof GatewayError && e.code === ErrorCode.MEMORY_NOT_CONFIGURED && e.message === 'no honcho.json');
  await assert.rejects(profile({ kind: 'invalid', reason: 'bad baseUrl' }), (e: unknown) => e instanceof GatewayError && e.code === ErrorCode.MEMORY_CONFIG_INVALID && e.message === 'bad baseUrl');
});
