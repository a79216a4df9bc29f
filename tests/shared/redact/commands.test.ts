import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { commandReadsSecretFile, isEnvDumpCommand, redactCommandOutput, redactsWholeOutput } from '../../../shared/redact.js';
import { commandSegments, isSecretFileOperand } from '../../../shared/redact/commands.js';
import { hermesDirs, isSecretBearingFile } from '../../../supervisor/tools/files/access/rules.js';

// Which commands' output is redacted whole (shared/redact/commands.ts): an environment dump as
// Hermes 0.19 and newer Hermes recognise one (agent/redact.py is_env_dump_command), or a read of a
// secret-bearing file as newer Hermes recognises one (_command_reads_secret_file). The table holds
// each version's own answer, taken from its functions; the gateway answers yes where either does.

// command, 0.19 env dump, newer env dump, newer reads a secret file
const TABLE: ReadonlyArray<[string, boolean, boolean, boolean]> = [
  ['cat .env', false, false, true],
  ['cat ./proj/.env.local', false, false, true],
  ['/bin/cat .env', false, false, true],
  ['cat ~/.bashrc', false, false, true],
  ['cat "$HOME/.zshrc"', false, false, true],
  ['head -n 5 .envrc', false, false, true],
  ['tail -f .env.production', false, false, true],
  ['grep TOKEN .env', false, false, true],
  ['grep .bashrc app.py', false, false, false],
  ['grep -r TOKEN .', false, false, false],
  ["awk '{print $1; print $2}' .env", false, false, true],
  ['sed -n 1p ~/.hermes/config.yaml', false, false, true],
  ['cat $HERMES_HOME/config.yaml', false, false, true],
  ['cat ${HERMES_HOME}/config.yaml', false, false, true],
  ['cat ~/.hermes/config.yaml.good.2026', false, false, true],
  ['sudo cat .env', false, false, false],
  ['cat $(echo .env)', false, false, false],
  ['less .profile', false, false, true],
  ['nl .zprofile', false, false, true],
  ['cat .env | grep X', false, false, true],
  ['cd /x && cat .env', false, false, true],
  ['bat .env', false, false, true],
  [`python -c 'print(open(".env").read())'`, false, false, false],
  ['cat .ENV', false, false, true],
  ['cat .env.example', false, false, false],
  ['env', true, true, false],
  ['printenv | sort', true, true, false],
  ["echo 'a | env b'", true, false, false],
  ['FOO=1 env', false, false, false],
  ['export', true, true, false],
  ['declare -p', true, true, false],
  ['set', true, true, false],
  ['cat file; env', true, true, false],
  ['cat C:\\Users\\me\\.env', false, false, true],
  ['zcat .env.gz', false, false, false],
  ['view .bashrc', false, false, true],
  ['more ~/.hermes/config.yaml', false, false, true],
];

test('each command is redacted whole exactly when either Hermes version would', () => {
  for (const [command, oldDump, newDump, readsSecret] of TABLE) {
    assert.equal(isEnvDumpCommand(command), oldDump || newDump, `env dump: ${command}`);
    assert.equal(commandReadsSecretFile(command), readsSecret, `reads a secret file: ${command}`);
    assert.equal(redactsWholeOutput(command), oldDump || newDump || readsSecret, command);
  }
});

test("newer Hermes' split keeps quoted separators in their segment; 0.19's splits on every one, and both count", () => {
  assert.deepEqual(commandSegments("grep 'a|b' .env; echo \"x & y\" | cat"), ["grep 'a|b' .env", 'echo "x & y"', 'cat']);
  // Only 0.19's split sees `env` here; only newer Hermes' keeps `.env` an operand of grep.
  assert.equal(isEnvDumpCommand("echo 'a | env b'"), true);
  assert.equal(commandReadsSecretFile("grep 'a|b' .env"), true);
});

const temp = mkdtempSync(join(tmpdir(), 'hmcp-redact-commands-'));
after(() => rmSync(temp, { recursive: true, force: true }));

test("Hermes' config.yaml is recognised under $HERMES_HOME, a .hermes directory or the Hermes home itself; a project's is not", () => {
  const home = join(temp, 'hermes-home');
  const root = join(temp, 'root');
  mkdirSync(home, { recursive: true });
  mkdirSync(join(root, 'profiles', 'work'), { recursive: true });
  mkdirSync(join(temp, 'project'), { recursive: true });
  symlinkSync(home, join(temp, 'link-to-home'));
  assert.equal(isSecretFileOperand(join(home, 'config.yaml'), { hermesHome: home }), true);
  assert.equal(isSecretFileOperand(join(home, 'backups', 'config', 'config.yaml.corrupt.1'), { hermesHome: home }), true);
  assert.equal(isSecretFileOperand(join(temp, 'link-to-home', 'config.yaml'), { hermesHome: home }), true, 'a symlink into the home');
  assert.equal(isSecretFileOperand(join(temp, 'project', 'config.yaml'), { hermesHome: home }), false);
  assert.equal(isSecretFileOperand(join(temp, 'project', '.hermes', 'config.yaml'), { hermesHome: home }), true);
  assert.equal(isSecretFileOperand('"$HERMES_HOME/config.yaml"', { hermesHome: home }), true);
  assert.equal(isSecretFileOperand('$PROJECT/.env', { hermesHome: home }), false, 'another variable: its target is unknown');
  assert.equal(commandReadsSecretFile(`grep -n api_key ${join(home, 'config.yaml')}`, { hermesHome: home }), true);
  assert.equal(commandReadsSecretFile(`cat ${join(temp, 'project', 'config.yaml')}`, { hermesHome: home }), false);
  // The home is the gateway's HERMES_HOME as given, not this process's environment.
  assert.equal(isSecretFileOperand(join(home, 'config.yaml'), { hermesHome: join(temp, 'another-home') }), false);
  // Under a profile, the root's config.yaml too.
  const profile = join(root, 'profiles', 'work');
  assert.equal(isSecretFileOperand(join(root, 'config.yaml'), { hermesHome: profile }), true);
  assert.equal(isSecretFileOperand(join(root, 'profiles', 'work', 'config.yaml'), { hermesHome: profile }), true);
});

test("a relative operand is judged against the directory the command ran in, not the gateway's", () => {
  const home = join(temp, 'cwd-home');
  const project = join(temp, 'cwd-project');
  mkdirSync(home, { recursive: true });
  mkdirSync(join(project, 'sub'), { recursive: true });
  symlinkSync(home, join(project, 'to-home'));
  // In the Hermes home, `config.yaml` is Hermes' own; in a project it is the project's.
  assert.equal(isSecretFileOperand('config.yaml', { hermesHome: home, cwd: home }), true);
  assert.equal(isSecretFileOperand('./config.yaml.good.1', { hermesHome: home, cwd: home }), true);
  assert.equal(isSecretFileOperand('config.yaml', { hermesHome: home, cwd: project }), false);
  assert.equal(isSecretFileOperand('../cwd-home/config.yaml', { hermesHome: home, cwd: join(project, 'sub') }), false, 'a sibling named like the home is not it');
  assert.equal(isSecretFileOperand('../../cwd-home/config.yaml', { hermesHome: home, cwd: join(project, 'sub') }), true);
  assert.equal(isSecretFileOperand('to-home/config.yaml', { hermesHome: home, cwd: project }), true, 'a symlink into the home, relative to the cwd');
  // An absolute operand does not depend on the cwd.
  assert.equal(isSecretFileOperand(join(home, 'config.yaml'), { hermesHome: home, cwd: project }), true);
  assert.equal(isSecretFileOperand(join(project, 'config.yaml'), { hermesHome: home, cwd: home }), false);
  // The whole command, and its output's mode.
  assert.equal(commandReadsSecretFile('cat config.yaml', { hermesHome: home, cwd: home }), true);
  assert.equal(commandReadsSecretFile('cat config.yaml', { hermesHome: home, cwd: project }), false);
  const text = 'model: gpt-5\nauth_token: abc123def';
  assert.equal(redactCommandOutput(text, 'cat config.yaml', { hermesHome: home, cwd: home }), 'model: gpt-5\nauth_token: ***');
  assert.equal(redactCommandOutput(text, 'cat config.yaml', { hermesHome: home, cwd: project }), text);
});

test('a command reading a file counts it secret-bearing exactly where read_file does (one list of names on both sides)', async () => {
  const dirs = await hermesDirs(join(temp, 'elsewhere-home'));
  for (const name of ['.env', '.env.local', '.env.development', '.env.production', '.env.test', '.env.staging', '.envrc', '.ENV', '.env.example', '.bashrc',
    '.bash_profile', '.bash_login', '.profile', '.zshrc', '.zprofile', '.zlogin', '.zshenv', '.bashrc.bak', 'notes.txt']) {
    const path = join(temp, 'project', name);
    assert.equal(isSecretFileOperand(path), isSecretBearingFile({ lexical: path, real: path }, dirs), name);
  }
  for (const path of [join(temp, 'a', '.hermes', 'config.yaml'), join(temp, 'a', '.hermes', 'config.yaml.good.2026'), join(temp, 'a', 'config.yaml')]) {
    assert.equal(isSecretFileOperand(path), isSecretBearingFile({ lexical: path, real: path }, dirs), path);
  }
});
