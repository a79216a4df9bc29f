import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { approvalPolicy, loadApprovalPolicy } from '../../../supervisor/tools/command-guards/approval-policy.js';
import { checkCommand, type CommandHomes } from '../../../supervisor/tools/command-guards/index.js';

// The pattern file's loader: Hermes' patterns as data, validated once at load.

const HOMES: CommandHomes = { userHome: '/home/alice', hermesHome: '/home/alice/.hermes' };

describe('policy/dangerous-commands.json', () => {
  test('loads once with Hermes’ 12 hardline patterns and its sudo -S guard, and the dangerous patterns of every supported Hermes', () => {
    const policy = approvalPolicy();
    assert.equal(policy, approvalPolicy(), 'cached');
    // kill -1 and each flag-run rule have a second entry for the command word inside a flag (--kill);
    // 0.19's 70 dangerous patterns, the 40 rules later Hermes added (5 entries for the package
    // managers, 2 for a secret upload) and the second flag-run entries.
    assert.equal(policy.hardline.length, 14);
    assert.equal(policy.dangerous.length, 118);
    assert.deepEqual(policy.hardline.filter((p) => p.commandOnly).map((p) => p.key), ['sudo password guessing via stdin (sudo -S)']);
    for (const p of [...policy.hardline, ...policy.dangerous]) {
      assert.ok(p.key.length > 0);
      assert.equal(p.re.global || p.re.sticky, false, `${p.key}: a stateful flag`);
    }
  });

  describe('a bad file fails with a clear message', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hmcp-approval-'));
    after(() => rmSync(dir, { recursive: true, force: true }));
    const good = { key: 'ok', pattern: String.raw`\bok\b`, flags: 'i' };
    const write = (name: string, doc: unknown) => {
      const file = join(dir, name);
      writeFileSync(file, typeof doc === 'string' ? doc : JSON.stringify(doc));
      return file;
    };

    test('an invalid regular expression names the file, the list, the index and the key', () => {
      const file = write('bad-regex.json', { hardline: [good], dangerous: [good, { key: 'broken one', pattern: '(unclosed', flags: 'i' }] });
      assert.throws(() => loadApprovalPolicy(file), (e: Error) => {
        assert.match(e.message, /approval guard: .*bad-regex\.json: dangerous\[1\] \("broken one"\): invalid regular expression/);
        return true;
      });
    });

    test('a wrong shape, a stateful flag, an empty-matching pattern and broken JSON are refused', () => {
      assert.throws(() => loadApprovalPolicy(write('shape.json', { hardline: [good], dangerous: [{ key: 'x', regex: 'x' }] })), /shape\.json is invalid: dangerous\.0/);
      assert.throws(() => loadApprovalPolicy(write('flags.json', { hardline: [good], dangerous: [{ ...good, flags: 'gi' }] })), /flags may only combine/);
      assert.throws(() => loadApprovalPolicy(write('empty.json', { hardline: [{ key: 'all', pattern: 'x*' }], dangerous: [good] })), /hardline\[0\] \("all"\): the pattern matches the empty command/);
      assert.throws(() => loadApprovalPolicy(write('json.json', '{"hardline": [')), /cannot read .*json\.json/);
      assert.throws(() => loadApprovalPolicy(join(dir, 'missing.json')), /cannot read .*missing\.json/);
    });

    test('flags default to i', () => {
      const policy = loadApprovalPolicy(write('default-flags.json', { hardline: [{ key: 'k', pattern: 'boom' }], dangerous: [good] }));
      assert.deepEqual(checkCommand('BOOM', HOMES, policy), { verdict: 'hardline', key: 'k' });
    });
  });
});
