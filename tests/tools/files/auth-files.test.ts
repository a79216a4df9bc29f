import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { connectWithToken, createStaticToken } from '../../helpers/auth.js';
import { makeHermesHome, startTestGateway, viaBridge, type TestGateway } from '../../helpers/gateway.js';
import type { Client } from '@modelcontextprotocol/client';

// The gateway's own authentication files sit under HERMES_HOME (a root here): its database with
// SQLite's -wal/-shm, its audit log and the operator passphrase. A read-scope credential must not
// read them (the passphrase approves any OAuth client), and no tool may write them.

const PASSPHRASE = 'correct horse battery staple';
let gw: TestGateway;
let reader: Client;
let full: Client;
let passphraseFile: string;
before(async () => {
  const home = makeHermesHome();
  mkdirSync(join(home, 'private'));
  passphraseFile = join(home, 'private', 'consent-passphrase');
  writeFileSync(passphraseFile, `${PASSPHRASE}\n`, { mode: 0o600 });
  gw = await startTestGateway({ home, env: { HERMES_MCP_PUBLIC_URL: 'https://hermes.example.test', HERMES_MCP_AUTH_PASSPHRASE_FILE: passphraseFile } });
  reader = await connectWithToken(gw.mcpUrl, 'modern', createStaticToken(gw.home, 'reader', 'read'));
  full = await connectWithToken(gw.mcpUrl, 'modern', createStaticToken(gw.home, 'writer', 'full'));
});
after(async () => {
  await reader.close();
  await full.close();
  await gw.close();
});

test('read_file of the passphrase file, the auth database\'s -wal/-shm and the audit log is FILE_BLOCKED', async () => {
  // (The database itself is refused earlier as binary, .sqlite3, as Hermes orders its checks.)
  for (const path of [passphraseFile, join(gw.home, 'gateway-auth.sqlite3-wal'), join(gw.home, 'gateway-auth.sqlite3-shm'), join(gw.home, 'logs', 'gateway-auth-audit.jsonl')]) {
    const r = await viaBridge(reader, 'read_file', { path });
    assert.equal(r.data.error, 'FILE_BLOCKED', `${path}: ${JSON.stringify(r.data)}`);
  }
});

test('search_files never shows the passphrase; write_file cannot replace it or the database', async () => {
  const found = await viaBridge(reader, 'search_files', { pattern: 'battery', path: gw.home, target: 'content' });
  assert.doesNotMatch(JSON.stringify(found.data), /battery staple/);
  for (const path of [passphraseFile, join(gw.home, 'gateway-auth.sqlite3')]) {
    const w = await viaBridge(full, 'write_file', { path, content: 'x' });
    assert.equal(w.data.error, 'FILE_BLOCKED', `${path}: ${JSON.stringify(w.data)}`);
  }
});
