import assert from 'node:assert/strict';
import { chmodSync, chownSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { startTestGateway } from '../../helpers/gateway.js';
import { tempDirs } from '../../helpers/temp.js';

// The operator passphrase approves any OAuth client: a file others can read (or one that belongs to
// another user, who could change it) refuses startup with a message naming the variable and the fix.

const temp = tempDirs();
after(() => temp.removeAll());

function passphraseFile(mode: number): string {
  const file = join(temp.make('hmcp-passmode-'), 'passphrase');
  writeFileSync(file, 'correct horse battery staple\n');
  chmodSync(file, mode);
  return file;
}

const env = (file: string) => ({ HERMES_MCP_PUBLIC_URL: 'https://hermes.example.test', HERMES_MCP_AUTH_PASSPHRASE_FILE: file });

test('a passphrase file with group or other bits refuses startup', async () => {
  for (const mode of [0o640, 0o604, 0o660]) {
    await assert.rejects(startTestGateway({ env: env(passphraseFile(mode)) }), new RegExp(`HERMES_MCP_AUTH_PASSPHRASE_FILE .* mode ${mode.toString(8)}.*chmod 600`));
  }
});

test('a passphrase file of another user refuses startup', async (t) => {
  if (process.getuid?.() !== 0) return t.skip('needs root to give the file to another user');
  const file = passphraseFile(0o600);
  chownSync(file, 65534, 65534);
  await assert.rejects(startTestGateway({ env: env(file) }), /HERMES_MCP_AUTH_PASSPHRASE_FILE .* belongs to uid 65534/);
});

test('a 0600 passphrase file of the gateway user starts', async () => {
  const gw = await startTestGateway({ env: env(passphraseFile(0o600)) });
  await gw.close();
});
