import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkCommand, type CommandHomes } from '../../supervisor/tools/command-guards/index.js';
import type { DenyRuleSource } from '../../supervisor/tools/command-guards/deny-rules.js';
import { compileGlob } from '../../supervisor/tools/command-guards/fnmatch.js';

// The approval guard on the longest commands Hermes' parser still reads (120 000 characters of one
// repeated piece): every rule's work must stay linear in the command's length. A stress test of the
// whole guard rather than a unit test of one file, so it runs with the suite, not with test:unit.

const HOMES: CommandHomes = { userHome: '/home/alice', hermesHome: '/home/alice/.hermes' };

test('the check stays linear on pathological input (120 000 characters each, no regex blow-up)', () => {
  // Each of these made at least one literal translation of Hermes' patterns quadratic or worse
  // (the openssl rule took 67 s on 8 KiB, a secret upload's `$(` 3 s, a killer's word list 44 s),
  // or exercises a rule later Hermes added. Linear is ~0.1-0.3 s of processor time here; the bound
  // only catches blow-ups.
  const units = ['rm a ', 'rm a -- ', 'npm -x ', 'pip -x y ', 'docker -H ', 'docker -x y ', 'podman -x ', 'curl -d ', 'curl -d @', 'curl -d "', 'curl -d $(', '$key ', '~/.ssh/x |', '.env | curl ', 'find -{', 'find . -{', 'rg --pre{', '\u200d', 'hermes -x y ', 'x:\\', 'if ', 'then ', '! ', 'taskkill ', 'icacls /grant ', 'remove-item ', 'launchctl stop ', 'pkill "', 'kill pgrep ', 'timeout 1 ', '2>x ', 'env -S ', '--rm ', '-rm ', '--kill ', '--chmod -x ', 'git push\n', 'cp a\n', 'openssl\n', 'bash -c ', 'python -c ', 'grep -P ', "grep -P 'x' ", '(python -c x ', 'rg --pre ', "bash -c 'bash -c ", 'gateway run\n', 'kill\n', 'find\n', 'xargs ', 'openssl base64 -d ', 'perl -i ', 'perl -i x -i ', 'git branch -d ', 'tee ', 'tee ./a/', 'cp ', 'cp a ./', 'rm -', ';rm -', 'kill -', 'killall -', 'pwsh -', 'hermes -a ', 'delete from ', '.env.', '> .env.env', '>a/', 'sudo -u $(', 'env a=$(b) ', 'env\ndecode=unload-lib$(', 'setsid\n', '$(', '(', '`', '{', 'chmod +x ;', 'echo x | ', 'curl |', 'find -exec ', 'sed -i ~/', 'cmd /c '];
  for (const unit of units) assert.ok(cpuMs(() => checkCommand(pathological(unit), HOMES)) < 4000, `${JSON.stringify(unit)}`);
});

test('… with the operator’s deny rules and the runtime floor too', () => {
  // Each glob is matched against every reading and every command-position projection.
  const deny: DenyRuleSource = { current: () => ({ rules: ['*a*b*c*d*', 'git push*', '*[!a-z]prod*'].map((glob) => ({ glob, file: 'config.yaml', compiled: [compileGlob(glob)] })) }) };
  const ctx = { ...HOMES, deny, runtime: [{ path: '/opt/hermes/venv', description: 'a venv' }], env: {} };
  for (const unit of ['a ', 'a b c ', 'git push ', 'sudo nice git ', 'env -S ', 'bash -c ', 'x; ', '$(', 'rm /opt/x ', 'find / -delete ', 'uv python uninstall 3 ']) {
    const ms = cpuMs(() => checkCommand(pathological(unit), ctx));
    assert.ok(ms < 4000, `${JSON.stringify(unit)}: ${Math.round(ms)} ms`);
  }
});

/** A 120 000-character command of `unit` repeated, after a line of its own (so Hermes' separator-free limit does not cut it short). */
const pathological = (unit: string) => 'x\n' + unit.repeat(Math.ceil(120_000 / unit.length)).slice(0, 120_000) + '\u0001/';

/** The processor time `fn` takes, in ms: what a blow-up costs, whatever else the machine runs at the time. */
function cpuMs(fn: () => unknown): number {
  const start = process.cpuUsage();
  fn();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}
