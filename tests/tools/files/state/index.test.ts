import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { after, describe, test } from 'node:test';
import { ErrorCode } from '../../../../shared/errors.js';
import type { CallContext } from '../../../../supervisor/core/tool-types.js';
import { FileStates } from '../../../../supervisor/tools/files/state/index.js';
import { Cases, call, ctx, expectCode } from '../fixture.js';

// Hermes' per-task read bookkeeping (tools/file_tools.py read_file_tool in 0.19,
// tools/file_tools_read_tracking.py later) as read-state.ts keeps it per durable owner: the
// "unchanged" stub for a region read again unchanged, BLOCKED from the second stub and on the 4th
// identical read in a row, the warning on the 3rd, what an edit and another tool call reset, and
// which version compares what. Sessionless calls always read.

const cases = new Cases();
after(() => cases.cleanup());

/** A call of a durable owner (a session token's). */
const session: CallContext = { ...ctx, owner: { id: 'cap:s1', kind: 'capability' } };
const otherSession: CallContext = { ...ctx, owner: { id: 'cap:s2', kind: 'capability' } };

const STUB = {
  status: 'unchanged',
  message: 'File unchanged since last read. The content from the earlier read_file result in this conversation is still current — refer to that instead of re-reading.',
  path: 'a.txt',
  dedup: true,
  content_returned: false,
};

const WARNING_3 =
  'You have read this exact file region 3 times consecutively. The content has not changed since your last read. Use the information you already have. If you are stuck in a loop, stop reading and proceed with writing or responding.';

function bumpMtime(path: string, seconds = 10): void {
  const st = fs.statSync(path);
  fs.utimesSync(path, st.atime, new Date(st.mtimeMs + seconds * 1000));
}

describe('read_file: repeated reads (Hermes per-task read state)', () => {
  test('a region read again unchanged is the stub; the second stub is BLOCKED with Hermes’ text and fields', async () => {
    const c = cases.make();
    c.file('a.txt', 'one\ntwo\n');
    assert.equal((await call(c.read, { path: 'a.txt' }, session)).content, '1|one\n2|two');
    assert.deepEqual(await call(c.read, { path: 'a.txt' }, session), STUB);
    const e = await expectCode(c.read.handler({ path: 'a.txt' }, session), ErrorCode.FILE_READ_REPEATED);
    assert.equal(
      e.message,
      'BLOCKED: You have called read_file on this exact region 3 times and the file has NOT changed. STOP calling read_file for this path — the content from your earlier read_file result in this conversation is still current. Proceed with your task using the information you already have.',
    );
    assert.deepEqual(e.details, { path: 'a.txt', already_read: 3, guardrail_refusal: true });
    const again = await expectCode(c.read.handler({ path: 'a.txt' }, session), ErrorCode.FILE_READ_REPEATED);
    assert.equal(again.details?.already_read, 4);
  });

  test('Hermes 0.19’s BLOCKED has no guardrail marker', async () => {
    const c = cases.make({ hermes: '0.19.0' });
    c.file('a.txt', 'one\n');
    await call(c.read, { path: 'a.txt' }, session);
    await call(c.read, { path: 'a.txt' }, session);
    const e = await expectCode(c.read.handler({ path: 'a.txt' }, session), ErrorCode.FILE_READ_REPEATED);
    assert.deepEqual(e.details, { path: 'a.txt', already_read: 3 });
  });

  test('sessionless calls and other owners always read; each region and each owner counts for itself', async () => {
    const c = cases.make();
    c.file('a.txt', 'one\ntwo\nthree\n');
    for (let i = 0; i < 5; i++) assert.equal((await call(c.read, { path: 'a.txt' })).content, '1|one\n2|two\n3|three');
    await call(c.read, { path: 'a.txt', limit: 1 }, session);
    await call(c.read, { path: 'a.txt', offset: 2 }, session);
    assert.equal((await call(c.read, { path: 'a.txt' }, otherSession)).content, '1|one\n2|two\n3|three');
    assert.equal((await call(c.read, { path: 'a.txt', limit: 1 }, session)).status, 'unchanged');
    assert.equal((await call(c.read, { path: 'a.txt', offset: 2 }, session)).status, 'unchanged');
    assert.equal((await call(c.read, { path: 'a.txt' }, session)).content, '1|one\n2|two\n3|three');
  });

  test('a file changed between reads is read; the 3rd read in a row warns, the 4th is BLOCKED', async () => {
    const c = cases.make();
    const path = c.file('a.txt', 'v1\n');
    assert.equal((await call(c.read, { path: 'a.txt' }, session))._warning, undefined);
    bumpMtime(path);
    assert.equal((await call(c.read, { path: 'a.txt' }, session))._warning, undefined);
    fs.writeFileSync(path, 'v3\n');
    bumpMtime(path, 20);
    const third = await call(c.read, { path: 'a.txt' }, session);
    assert.equal(third.content, '1|v3');
    assert.equal(third._warning, WARNING_3);
    bumpMtime(path, 30);
    const e = await expectCode(c.read.handler({ path: 'a.txt' }, session), ErrorCode.FILE_READ_REPEATED);
    assert.equal(e.message, 'BLOCKED: You have read this exact file region 4 times in a row. The content has NOT changed. You already have this information. STOP re-reading and proceed with your task.');
    assert.deepEqual(e.details, { path: 'a.txt', already_read: 4, guardrail_refusal: true });
    // After 0.19 the refused read leaves no record: the next read of the unchanged file reads again (5 in a row).
    assert.equal((await expectCode(c.read.handler({ path: 'a.txt' }, session), ErrorCode.FILE_READ_REPEATED)).details?.already_read, 5);
  });

  test('Hermes 0.19 keeps the BLOCKED read’s record: the next read of the unchanged file is the stub', async () => {
    const c = cases.make({ hermes: '0.19.0' });
    const path = c.file('a.txt', 'v1\n');
    for (let i = 0; i < 3; i++) {
      await call(c.read, { path: 'a.txt' }, session);
      bumpMtime(path, 10 * (i + 1));
    }
    await expectCode(c.read.handler({ path: 'a.txt' }, session), ErrorCode.FILE_READ_REPEATED);
    assert.deepEqual(await call(c.read, { path: 'a.txt' }, session), STUB);
  });

  test('a same-time rewrite: 0.19 compares the mtime only (the stub), later releases the whole stat (a read)', async () => {
    for (const [hermes, expected] of [
      ['0.19.0', 'unchanged'],
      ['0.22.2', undefined],
    ] as const) {
      const c = cases.make({ hermes });
      const path = c.file('a.txt', 'alpha\n');
      const t = new Date(Math.floor(Date.now() / 1000) * 1000 - 3_600_000);
      fs.utimesSync(path, t, t);
      await call(c.read, { path: 'a.txt' }, session);
      fs.writeFileSync(path, 'omega\n');
      fs.utimesSync(path, t, t);
      assert.equal((await call(c.read, { path: 'a.txt' }, session)).status, expected, hermes);
    }
  });

  test('another tool’s call (the adapter’s call hook) clears the stub count and the reads in a row; a search keeps the stub count', async () => {
    const c = cases.make();
    c.file('a.txt', 'one\n');
    await call(c.read, { path: 'a.txt' }, session);
    assert.equal((await call(c.read, { path: 'a.txt' }, session)).status, 'unchanged');
    c.fileStates.toolCalled('terminal', session);
    assert.equal((await call(c.read, { path: 'a.txt' }, session)).status, 'unchanged');
    c.fileStates.toolCalled('search_files', session);
    c.fileStates.toolCalled('read_file', session); // a read is not another tool's call
    await expectCode(c.read.handler({ path: 'a.txt' }, session), ErrorCode.FILE_READ_REPEATED);
    // Another owner's tool call changes nothing of this one's.
    c.fileStates.toolCalled('terminal', otherSession);
    await expectCode(c.read.handler({ path: 'a.txt' }, session), ErrorCode.FILE_READ_REPEATED);
  });

  test('the task’s own write_file and patch forget every region of the path', async () => {
    const c = cases.make();
    c.file('a.txt', 'one\ntwo\n');
    await call(c.read, { path: 'a.txt' }, session);
    await call(c.read, { path: 'a.txt', limit: 1 }, session);
    await call(c.write, { path: 'a.txt', content: 'uno\ndos\n' }, session);
    assert.equal((await call(c.read, { path: 'a.txt', limit: 1 }, session)).content, '1|uno');
    assert.equal((await call(c.read, { path: 'a.txt' }, session)).content, '1|uno\n2|dos');
    await call(c.patch, { mode: 'replace', path: 'a.txt', old_string: 'dos', new_string: 'DOS' }, session);
    assert.equal((await call(c.read, { path: 'a.txt' }, session)).content, '1|uno\n2|DOS');
    assert.equal((await call(c.read, { path: 'a.txt' }, session)).status, 'unchanged');
  });

  test('failed reads: 0.19 counts them (the 3rd warns, the 4th is BLOCKED), later releases do not', async () => {
    const old = cases.make({ hermes: '0.19.0' });
    await expectCode(old.read.handler({ path: 'missing.txt' }, session), ErrorCode.FILE_NOT_FOUND);
    await expectCode(old.read.handler({ path: 'missing.txt' }, session), ErrorCode.FILE_NOT_FOUND);
    const third = await expectCode(old.read.handler({ path: 'missing.txt' }, session), ErrorCode.FILE_NOT_FOUND);
    assert.equal(third.details?._warning, WARNING_3);
    await expectCode(old.read.handler({ path: 'missing.txt' }, session), ErrorCode.FILE_READ_REPEATED);

    const c = cases.make();
    for (let i = 0; i < 5; i++) {
      const e = await expectCode(c.read.handler({ path: 'missing.txt' }, session), ErrorCode.FILE_NOT_FOUND);
      assert.equal(e.details?._warning, undefined);
    }
  });

  test('an ended owner’s read state goes with it', async () => {
    const c = cases.make();
    c.file('a.txt', 'one\n');
    await call(c.read, { path: 'a.txt' }, session);
    c.fileStates.release(session.owner.id);
    assert.equal((await call(c.read, { path: 'a.txt' }, session)).content, '1|one');
  });
});

describe('staleness with HERMES_DISABLE_FILE_STATE_GUARD=1: the read tracker’s own warning', () => {
  for (const hermes of ['0.19.0', '0.22.2']) {
    test(`Hermes ${hermes}: a file whose mtime moved since the task read it is edited with Hermes’ warning, naming the path as given`, async () => {
      const c = cases.make({ hermes, guardOff: true });
      const path = c.file('a.txt', 'one\ntwo\n');
      const warning = 'Warning: a.txt was modified since you last read it (external edit or concurrent agent). The content you read may be stale. Consider re-reading the file to verify before writing.';
      for (const who of [session, ctx]) {
        fs.writeFileSync(path, 'one\ntwo\n');
        await call(c.read, { path: 'a.txt', offset: 1, limit: who === ctx ? 10 : 20 }, who);
        bumpMtime(path);
        const patched = await call(c.patch, { mode: 'replace', path: 'a.txt', old_string: 'two', new_string: 'TWO' }, who);
        assert.equal(patched._warning, warning, who.owner.kind);
        // The task's own edit moves its read time along: no warning on the next one.
        assert.equal((await call(c.write, { path: 'a.txt', content: 'x\n' }, who))._warning, undefined, who.owner.kind);
        bumpMtime(path, 20);
        assert.equal((await call(c.write, { path: 'a.txt', content: 'y\n' }, who))._warning, warning, who.owner.kind);
      }
      // A task that never read the file gets no warning.
      assert.equal((await call(c.write, { path: 'a.txt', content: 'z\n' }, otherSession))._warning, undefined);
    });
  }
});

describe('read-state: bounded memory', () => {
  test('a task keeps at most maxPaths read regions, the oldest going first', async () => {
    const c = cases.make();
    const paths = ['a', 'b', 'c'].map((n) => c.file(`${n}.txt`, `${n}\n`));
    const states = new FileStates({ enabled: true, guard: true, maxPaths: 2, ledgerTtlMs: 60_000, maxLedgers: 4 });
    const rules = { byVersion: true, failedReadsCounted: false };
    for (const p of paths) {
      const before = await states.statBefore(session, p);
      await states.noteReadLoop(session, p, p, 1, 2000, before, rules);
    }
    assert.equal(await states.repeatedRead(session, paths[0]!, 1, 2000, rules), null, 'the oldest region was evicted');
    assert.deepEqual(await states.repeatedRead(session, paths[2]!, 1, 2000, rules), { kind: 'unchanged' });
    assert.deepEqual(await states.repeatedRead(session, paths[1]!, 1, 2000, rules), { kind: 'unchanged' });
    // Sessionless calls keep no read regions at all.
    assert.equal(await states.noteReadLoop(ctx, paths[0]!, paths[0]!, 1, 2000, null, rules), 0);
    assert.equal(await states.repeatedRead(ctx, paths[0]!, 1, 2000, rules), null);
  });
});
