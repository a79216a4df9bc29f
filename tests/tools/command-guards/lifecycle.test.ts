import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OverBudget, type Budget } from '../../../supervisor/tools/command-guards/command-words.js';
import { splicesGatewayLifecycle } from '../../../supervisor/tools/command-guards/lifecycle.js';

// Hermes' spliced gateway lifecycle check: stopping or killing the Hermes gateway, or the Python
// interpreter hosting it, however the words are spliced.

const plenty = (): Budget => ({ left: 1_000_000 });
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
