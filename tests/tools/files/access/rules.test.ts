import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { hermesDirs, isSecretBearingFile, readBlockMessage, readVerdict, type CheckedPath } from '../../../../supervisor/tools/files/access/rules.js';
import { tempDirs } from '../../../helpers/temp.js';

// read_file resolves the Hermes home (a realpath per call) only when a rule about the Hermes
// directories could match the path it reads. Skipping it must never change an answer: for every
// file those rules name, under the home, under a profile's Hermes root and through a symlinked
// home, and for ordinary files beside them, readVerdict answers exactly what the rules say with
// the home resolved.

const temp = tempDirs();
after(() => temp.removeAll());

/** What the read rules protect inside a Hermes directory, and files beside them that look alike. */
const UNDER_HOME = [
  'auth.json', 'auth.lock', '.anthropic_oauth.json', '.env', 'webhook_subscriptions.json', join('auth', 'google_oauth.json'), join('cache', 'bws_cache.json'),
  'gateway-auth.sqlite3', 'gateway-auth.sqlite3-wal', 'gateway-auth.sqlite3-shm', 'gateway-auth.sqlite3-journal',
  join('logs', 'gateway-auth-audit.jsonl'), join('logs', 'gateway-auth-audit.jsonl.1'),
  join('skills', '.hub'), join('skills', '.hub', 'index.json'), join('skills', '.hub', 'a', 'b.md'),
  'mcp-tokens', join('mcp-tokens', 'server.json'),
  'config.yaml', 'config.yaml.good.1', 'config.yaml.corrupt.2',
  // Alike but allowed (or judged by the rules that hold anywhere):
  'SOUL.md', 'auth.json.bak', join('skills', 'hub', 'x.md'), join('skills', 'mine', 'SKILL.md'), 'mcp-tokens-notes.md', join('logs', 'agent.log'), '.env.example', '.bashrc',
];

function layout(): { homes: string[]; paths: string[] } {
  const base = fs.realpathSync(temp.make('read-verdict-'));
  const home = join(base, 'home');
  const root = join(base, '.hermes');
  const profile = join(root, 'profiles', 'work');
  const linked = join(base, 'linked-home');
  for (const dir of [home, profile]) fs.mkdirSync(dir, { recursive: true });
  fs.symlinkSync(home, linked);
  const paths: string[] = [];
  for (const dir of [home, root, profile, join(base, 'project')]) {
    // The rules look at paths only (read_file has resolved them): the files need not exist.
    for (const rel of UNDER_HOME) paths.push(join(dir, rel));
  }
  return { homes: [home, linked, profile], paths };
}

test('readVerdict gives the answers of the read rules with the Hermes home resolved, for every file they name and those beside them', async () => {
  const { homes, paths } = layout();
  let blocked = 0;
  let secret = 0;
  for (const hermesHome of homes) {
    const dirs = await hermesDirs(hermesHome);
    for (const real of paths) {
      // Both spellings: the real path, and one through the symlinked home (lexical) that leads to it.
      const spellings: CheckedPath[] = [{ lexical: real, real }];
      if (real.startsWith(homes[0]! + '/')) spellings.push({ lexical: homes[1]! + real.slice(homes[0]!.length), real });
      for (const p of spellings) {
        const expected = { blocked: readBlockMessage(p, p.lexical, dirs), secretFile: isSecretBearingFile(p, dirs) };
        assert.deepEqual(await readVerdict(p, p.lexical, hermesHome), expected, `${p.lexical} (home ${hermesHome})`);
        if (expected.blocked) blocked++;
        if (expected.secretFile) secret++;
      }
    }
  }
  // The comparison is about the rules that depend on the home: they must have fired, many times.
  assert.ok(blocked > 50, `blocked answers compared: ${blocked}`);
  assert.ok(secret > 10, `secret-bearing answers compared: ${secret}`);
});
