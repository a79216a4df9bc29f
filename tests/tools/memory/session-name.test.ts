import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { RawFields, Rules } from '../../../supervisor/tools/memory/honcho-fields.js';
import { sessionName } from '../../../supervisor/tools/memory/session-name.js';
import { tempDirs } from '../../helpers/temp.js';

// The Honcho session Hermes uses for a project directory (client.py resolve_session_name).

const temp = tempDirs();
after(() => temp.removeAll());

const RULES: Rules = { baseUrlSources: true, printableBaseUrl: true, rootKeyOnLocal: true, sessionAiPeerPrefix: true };
const OLD_RULES: Rules = { ...RULES, sessionAiPeerPrefix: false };
const fields = (over: Partial<RawFields> = {}): RawFields => ({
  apiKeySource: 'none', explicitKey: false, workspace: 'ws', environment: 'production', enabled: true, enabledExplicit: false, reasoningDynamic: true,
  sessionStrategy: 'per-directory', sessionPeerPrefix: false, sessionAiPeerPrefix: false, sessions: {}, aiObserveOthers: true, ...over,
});

test('per-directory (the default, and per-session): the directory name, sanitized; with sessionPeerPrefix the peer first', () => {
  assert.equal(sessionName(fields(), 'hermes', '/p/my project.v2', RULES), 'my-project-v2');
  assert.equal(sessionName(fields({ sessionStrategy: 'per-session' }), 'hermes', '/p/app', RULES), 'app');
  assert.equal(sessionName(fields({ sessionPeerPrefix: true, peerName: 'ana' }), 'hermes', '/p/app', RULES), 'ana-app');
  assert.equal(sessionName(fields({ sessionPeerPrefix: true }), 'hermes', '/p/app', RULES), 'app', 'no peer, no prefix');
});

test("the sessions map wins; per-repo is the git repository's name; any other strategy is the workspace", () => {
  const repo = temp.make('honcho-repo-');
  mkdirSync(join(repo, '.git'));
  mkdirSync(join(repo, 'src', 'deep'), { recursive: true });
  assert.equal(sessionName(fields({ sessionStrategy: 'per-repo' }), 'hermes', join(repo, 'src', 'deep'), RULES), repo.split('/').pop()!.replace(/[^a-zA-Z0-9_-]/g, '-'));
  assert.equal(sessionName(fields({ sessions: { '/p/app': 'chosen one' } }), 'hermes', '/p/app', RULES), 'chosen-one');
  assert.equal(sessionName(fields({ sessionStrategy: 'global' }), 'hermes', '/p/app', RULES), 'ws');
  assert.equal(sessionName(fields({ sessionStrategy: 'global', workspace: '' }), 'hermes', '/p/app', RULES), 'hermes-default');
});

test('sessionAiPeerPrefix: the assistant peer (aiPeer, else the host) first, only for the Hermes that has it; cut to 100 with a hash', () => {
  assert.equal(sessionName(fields({ sessionAiPeerPrefix: true }), 'hermes_work', '/p/app', RULES), 'hermes_work-app');
  assert.equal(sessionName(fields({ sessionAiPeerPrefix: true, aiPeer: '  my bot!! ' }), 'hermes', '/p/app', RULES), 'my-bot-app');
  assert.equal(sessionName(fields({ sessionAiPeerPrefix: true }), 'hermes', '/p/app', OLD_RULES), 'app');
  const long = sessionName(fields({ sessionAiPeerPrefix: true }), 'hermes', `/p/${'d'.repeat(120)}`, RULES);
  assert.equal(long.length, 100);
  assert.match(long, /^hermes-d{84}-[0-9a-f]{8}$/);
  assert.equal(sessionName(fields(), 'hermes', `/p/${'d'.repeat(120)}`, RULES), 'd'.repeat(120), 'a long directory name alone is not cut');
});
