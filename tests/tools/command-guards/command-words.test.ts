import assert from 'node:assert/strict';
import { test } from 'node:test';
import { basename, commandStartVariant, markRawCommandStarts, OverBudget, segmentWords, spend, type Budget } from '../../../supervisor/tools/command-guards/command-words.js';

// Where the shell starts a command and which words stand in command position, read from the text.

const plenty = (): Budget => ({ left: 1_000_000 });

test('spend takes from the budget and throws OverBudget only once it goes below zero', () => {
  const budget: Budget = { left: 10 };
  spend(budget, 10);
  assert.equal(budget.left, 0);
  assert.throws(() => spend(budget, 1), (e: unknown) => e instanceof OverBudget && e.message === 'command parser budget exceeded');
  assert.equal(budget.left, -1);
});

test('basename is the last path component, or the word itself', () => {
  assert.equal(basename('/usr/bin/rm'), 'rm');
  assert.equal(basename('rm'), 'rm');
  assert.equal(basename('dir/'), '');
});

test('commandStartVariant drops wrappers, assignments and redirections and starts each command on its own line', () => {
  assert.equal(commandStartVariant('sudo -u root "rm" -rf /'), 'rm -rf /', "sudo's -u value is skipped, the command word deobfuscated");
  assert.equal(commandStartVariant('ls; env A=1 nice -n 5 rm x && echo hi | timeout 5 cat'), 'ls;\nrm x &&\necho hi |\ncat');
  assert.equal(commandStartVariant('2>/dev/null rm x'), 'rm x', 'a redirection target is data');
  assert.equal(commandStartVariant('chroot /srv rm x'), 'rm x', "chroot's operand comes before the command");
  assert.equal(commandStartVariant('x `rm y`'), 'x `\nrm y`', 'a backtick starts a command');
  assert.equal(commandStartVariant('if reboot; then $(echo rm) x; fi'), 'if\nreboot;\nthen\nrm x;\nfi', 'a transition word hands over to the next word');
});

test('commandStartVariant leaves a wrapper that runs nothing, and quoted separators, as written', () => {
  assert.equal(commandStartVariant('command -v rm'), 'command -v rm');
  assert.equal(commandStartVariant('env -S "rm -rf /" x'), 'env -S "rm -rf /" x', 'env -S: its command is the split string');
  assert.equal(commandStartVariant('echo "a; rm"'), 'echo "a; rm"');
  assert.equal(commandStartVariant("echo 'a $(rm)'"), "echo 'a $(rm)'", 'no command starts inside single quotes');
  assert.equal(commandStartVariant('FOO=1 BAR=2'), 'FOO=1 BAR=2', 'assignments alone have no command word');
});

test('markRawCommandStarts marks each start, reading backslash escapes as the shell does', () => {
  assert.equal(markRawCommandStarts('a; b "x\\"; c" && d', '|M|'), 'a;|M| b "x\\"; c" &&|M| d', 'the escaped quote keeps "; c" inside the string');
  assert.equal(markRawCommandStarts('a\\; b', '|M|'), 'a\\; b', 'an escaped ; starts nothing');
  assert.equal(markRawCommandStarts('plain', '|M|'), 'plain', 'the start at 0 is not marked');
});

test('segmentWords: each top-level segment with its offset and command-position words', () => {
  assert.deepEqual(segmentWords('ls; env A=1 nice -n 5 rm x', plenty()), [
    { at: 0, segment: 'ls', spans: [[0, 2, 'ls']] },
    {
      at: 3,
      segment: ' env A=1 nice -n 5 rm x',
      spans: [
        [1, 4, 'env'],
        [5, 8, 'A=1'],
        [9, 13, 'nice'],
        [19, 21, 'rm'],
      ],
    },
  ]);
  assert.deepEqual(segmentWords('sudo -u root "rm" -rf /', plenty())[0]!.spans, [
    [0, 4, 'sudo'],
    [13, 17, '"rm"'],
  ], 'the raw word as written');
  assert.deepEqual(segmentWords('then $(echo rm) x', plenty())[0]!.spans, [
    [0, 4, 'then'],
    [5, 15, '$(echo rm)'],
    [7, 11, 'echo'],
  ], 'the command inside $(…) has its own start');
  assert.deepEqual(segmentWords("a 'b;c' \\; d", plenty()).map((s) => s.segment), ["a 'b;c' \\; d"], 'quoted and escaped separators do not split');
  assert.deepEqual(segmentWords('', plenty()), []);
});

test('segmentWords spends the budget and throws when a command needs more', () => {
  const budget = plenty();
  segmentWords('sudo rm -rf /', budget);
  assert.ok(budget.left < 1_000_000);
  assert.throws(() => segmentWords('a; '.repeat(100), { left: 50 }), OverBudget);
});

test('words longer than 256 characters or more than 12 wrappers end the reading of a start', () => {
  assert.equal(commandStartVariant(`${'x'.repeat(300)} ; rm y`), `${'x'.repeat(300)} ;\nrm y`);
  const wrappers = `${'nice '.repeat(12)}rm x`;
  assert.equal(commandStartVariant(wrappers), wrappers, 'no command word within 12 words');
  assert.equal(commandStartVariant(`${'nice '.repeat(11)}rm x`), 'rm x');
});
