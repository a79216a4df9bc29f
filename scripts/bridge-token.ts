#!/usr/bin/env node
import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, lstatSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { ConfigError, loadConfig } from '../supervisor/platform/config.js';

// Writes the bridge profile's bearer token (64 hex characters from 32 random bytes) into
// MCP_AUTH_TOKEN of the bridge .env, atomically and 0600, and prints the file's path, never the
// value. `generate` keeps a valid token that is already there; `rotate` always replaces it. The
// running gateway picks a changed token up on the next request (no restart needed).
//
//   node dist/scripts/bridge-token.js generate|rotate [--env FILE]   (default: $HERMES_MCP_BRIDGE_ENV)

const USAGE = 'usage: bridge-token generate|rotate [--env FILE]   (FILE defaults to $HERMES_MCP_BRIDGE_ENV)\n';

function fail(message: string, code = 1): never {
  process.stderr.write(`bridge-token: ${message}\n`);
  process.exit(code);
}

const [command, flag, value] = process.argv.slice(2);
if ((command !== 'generate' && command !== 'rotate') || (flag !== undefined && (flag !== '--env' || !value))) fail(`bad arguments\n${USAGE}`, 2);
let file = value;
if (!file) {
  try {
    file = loadConfig(process.env).bridgeEnvFile;
  } catch (e) {
    if (e instanceof ConfigError) fail(e.message, 2);
    throw e;
  }
}
if (!file) fail(`no file: pass --env FILE or set HERMES_MCP_BRIDGE_ENV\n${USAGE}`, 2);

const stat = lstatSync(file, { throwIfNoEntry: false });
if (stat && !stat.isFile()) fail(`${file} is not a regular file`);
const lines = stat ? readFileSync(file, 'utf8').split('\n') : [];
const index = lines.findIndex((l) => /^\s*(export\s+)?MCP_AUTH_TOKEN\s*=/.test(l));
const existing = index >= 0 ? /=\s*['"]?([0-9a-fA-F]{64})['"]?\s*$/.exec(lines[index]!)?.[1] : undefined;
if (command === 'generate' && existing) {
  process.stdout.write(`${file}: MCP_AUTH_TOKEN already set (use rotate to replace it)\n`);
  process.exit(0);
}
const line = `MCP_AUTH_TOKEN=${randomBytes(32).toString('hex')}`;
if (index >= 0) lines[index] = line;
else lines.splice(lines.length > 0 && lines[lines.length - 1] === '' ? lines.length - 1 : lines.length, 0, line);
const text = lines.join('\n').replace(/\n*$/, '\n');
const temp = `${file}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
const fd = openSync(temp, 'wx', 0o600);
try {
  writeSync(fd, text);
  fsyncSync(fd);
  closeSync(fd);
  renameSync(temp, file);
} catch (e) {
  rmSync(temp, { force: true });
  fail(`could not write ${file}: ${(e as Error).message}`);
}
process.stdout.write(`${file}: MCP_AUTH_TOKEN ${command === 'rotate' && existing ? 'rotated' : 'written'} (mode 600)\n`);
