import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OverBudget, segmentWords, type Budget } from '../../../supervisor/tools/command-guards/command-words.js';
import { grepSafeVariant, splicesGatewayLifecycle } from '../../../supervisor/tools/command-guards/structural.js';

// Hermes' grep-safe detection variant: a quoted `grep -P` pattern is blanked (same length), so the
// patterns never read a regular expression as a command.

const plenty = (): Budget => ({ left: 1_000_000 });
const variant = (c: string) => grepSafeVariant(c, segmentWords(c, plenty()), plenty());

test('a single-quoted grep -P pattern is blanked to spaces of its length, wherever -P is spelt', () => {
  assert.equal(variant("grep -P 'rm -rf /' f"), 'grep -P            f');
  assert.equal(variant("grep -Pe 'rm -rf /' f"), 'grep -Pe            f', '-e with its value in the next word');
  assert.equal(variant("grep --perl-regexp --regexp='rm x' f"), 'grep --perl-regexp                 f', '--regexp=VALUE is the pattern');
  assert.equal(variant("grep -A 3 -P 'x' f"), 'grep -A 3 -P     f', "-A's value is not the pattern");
  assert.equal(variant("ls | egrep -P 'rm' && grep -P \"$(rm)\" f"), 'ls | egrep -P      && grep -P "$(rm)" f', 'egrep too; a double-quoted pattern is not inert and stays');
  assert.equal(variant("grep x; grep -P 'y' f"), "grep x; grep -P     f", 'every grep of the command');
});

test('with -e, only the -e patterns are blanked, and only the inert ones', () => {
  assert.equal(variant(`grep -P -e 'a' -e "b" f`), 'grep -P -e     -e "b" f');
});

test('without -P nothing changes', () => {
  const c = "grep 'rm -rf /' f";
  assert.equal(variant(c), c);
  assert.equal(variant('ls -la'), 'ls -la');
});

test('a grep whose arguments cannot be read is malformed', () => {
  assert.equal(variant('grep -P'), 'malformed', '-P without a pattern');
  assert.equal(variant('grep -P -A'), 'malformed', 'an option missing its value');
  assert.equal(variant('grep --context'), 'malformed');
  assert.equal(variant("grep 'x"), 'malformed', 'unbalanced quoting');
  assert.equal(variant('grep'), 'grep', 'no pattern and no -P: the command as it is');
});

test('the budget pays for each grep read', () => {
  const c = `grep -P 'x' ${'f '.repeat(100)}`;
  assert.throws(() => grepSafeVariant(c, segmentWords(c, plenty()), { left: 10 }), OverBudget);
});

// Hermes' spliced gateway lifecycle check: stopping or killing the Hermes gateway, or the Python
// interpreter hosting it, however the words are spliced.

const splices = (c: string) => splicesGatewayLifecycle(c, plenty());

test('stopping, restarting or unloading the gateway is found, spliced or plain', () => {
  for (const c of [
    'hermes gateway restart',
    'hermes.exe gateway stop',
    'launchctl kick"start" gui/501/ai.hermes.gateway',
    'systemctl --user stop hermes-gateway',
    "h'ermes' gateway stop",
    'hermes \\\n  gateway uninstall',
    'pkill -f "hermes gateway"',
    'launchctl bootout gui/501 ai.hermes.gateway',
  ]) {
    assert.equal(splices(c), true, c);
  }
});

test("killing the Python interpreter is found, by name, image, pattern or the enumerator of a kill", () => {
  for (const c of ['pkill python3', 'taskkill /IM python.exe', 'Stop-Process -Name:python', 'kill $(pgrep -f python)', "pkill -f 'python *'", 'pkill -f "py*"', 'killall -9 python', 'pkill -f hermes_cli', 'pkill -f "python -m hermes_cli"']) {
    assert.equal(splices(c), true, c);
  }
});

test('what neither stops the gateway nor kills its interpreter is not found', () => {
  for (const c of ['echo hermes gateway', 'hermes gateway status', 'pgrep python', "pkill -f 'python app.py'", 'killall node', 'systemctl restart nginx', 'launchctl list', 'kill 1234']) {
    assert.equal(splices(c), false, c);
  }
});

test('a killer word anywhere before the interpreter counts: the check only ever flags more than Hermes', () => {
  assert.equal(splices('echo "pkill" python'), true);
  assert.equal(splices('echo python pkill'), false, 'the target must come after the killer');
});

test('reading the words spends the budget', () => {
  assert.throws(() => splicesGatewayLifecycle(`pkill '${'x'.repeat(100)}'`, { left: 10 }), OverBudget);
  assert.equal(splicesGatewayLifecycle('hermes gateway stop', { left: 0 }), true, 'the plain text is matched before any word is read');
});
