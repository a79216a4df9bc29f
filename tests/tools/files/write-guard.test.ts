import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { after, describe, test } from 'node:test';
import { ErrorCode } from '../../../shared/errors.js';
import type { CallContext } from '../../../supervisor/core/tool-types.js';
import { FileStates } from '../../../supervisor/tools/files/state/index.js';
import { Cases, call, ctx, expectCode } from './fixture.js';

// write_file's read-before-overwrite guard (Hermes 0.20.6 and later, upstream PR #91238): an
// existing file is replaced only when this task has seen every line of it unredacted, as it is now
// (same inode, size, times and sha256), or wrote it itself, or patched it from bytes it knew. The
// refusal comes before anything is written. Sessionless requests share one state per credential;
// sessions (tokens, legacy sessions) have their own. Before 0.20.6 the write goes through with
// Hermes' staleness warning.

const cases = new Cases();
after(() => cases.cleanup());

/** Another call's context: another owner (a request of the same credential by default). */
function as(owner: CallContext['owner'], grant?: CallContext['grant']): CallContext {
  return { ...ctx, owner, ...(grant ? { grant } : {}) };
}

const NOT_SEEN = /exists but this task has not seen its full current content \(never read, patched without a prior full read, or only a redacted\/partial view\)/;

describe('write_file: read before overwrite (Hermes 0.20.6 and later)', () => {
  test('an unread existing file is refused before anything is written, with Hermes’ text and fields', async () => {
    const c = cases.make();
    const path = c.file('a.txt', 'old\n');
    const e = await expectCode(c.write.handler({ path: 'a.txt', content: 'new\n' }, ctx), ErrorCode.FILE_STALE_WRITE);
    assert.match(e.message, new RegExp(`^Refusing to overwrite a\\.txt: ${path.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} exists but this task`));
    assert.match(e.message, NOT_SEEN);
    assert.match(e.message, /The file was NOT modified\. Reload the current contents with read_file/);
    assert.deepEqual(e.details, { stale_write_blocked: true, path: 'a.txt', resolved_path: path });
    assert.equal(c.text('a.txt'), 'old\n');
    // A new file needs no read.
    assert.equal((await call(c.write, { path: 'b.txt', content: 'x\n' })).bytes_written, 2);
  });

  test('a full read allows the overwrite, and the task’s own write allows the next', async () => {
    const c = cases.make();
    c.file('a.txt', 'one\ntwo\n');
    await call(c.read, { path: 'a.txt' });
    await call(c.write, { path: 'a.txt', content: 'first\n' });
    await call(c.write, { path: 'a.txt', content: 'second\n' });
    assert.equal(c.text('a.txt'), 'second\n');
  });

  test('a partial read is not a full view; pages that reach from line 1 to the last are', async () => {
    const c = cases.make();
    c.file('a.txt', 'one\ntwo\nthree\nfour\n');
    await call(c.read, { path: 'a.txt', limit: 2 });
    const e = await expectCode(c.write.handler({ path: 'a.txt', content: 'x\n' }, ctx), ErrorCode.FILE_STALE_WRITE);
    assert.match(e.message, /was last read with offset\/limit pagination \(partial view\)\. Read the remaining pages, or use patch, before overwriting it\./);
    await call(c.read, { path: 'a.txt', offset: 4, limit: 1 }); // a gap: line 3 unseen
    await expectCode(c.write.handler({ path: 'a.txt', content: 'x\n' }, ctx), ErrorCode.FILE_STALE_WRITE);
    await call(c.read, { path: 'a.txt', offset: 3, limit: 1 });
    await call(c.write, { path: 'a.txt', content: 'x\n' });
    assert.equal(c.text('a.txt'), 'x\n');
  });

  test('a file changed since it was read is refused: a new mtime, or other bytes behind the same mtime', async () => {
    const c = cases.make();
    const path = c.file('a.txt', 'one\n');
    await call(c.read, { path: 'a.txt' });
    const st = fs.statSync(path);
    fs.utimesSync(path, st.atime, new Date(st.mtimeMs + 10_000));
    const touched = await expectCode(c.write.handler({ path: 'a.txt', content: 'x\n' }, ctx), ErrorCode.FILE_STALE_WRITE);
    assert.match(touched.message, /was modified since you last read it on disk \(external edit or unrecorded writer\)/);

    await call(c.read, { path: 'a.txt' });
    const mtime = fs.statSync(path).mtime;
    fs.writeFileSync(path, 'ONE\n'); // same size, then the old mtime put back
    fs.utimesSync(path, mtime, mtime);
    const swapped = await expectCode(c.write.handler({ path: 'a.txt', content: 'x\n' }, ctx), ErrorCode.FILE_STALE_WRITE);
    assert.match(swapped.message, NOT_SEEN);
    assert.equal(c.text('a.txt'), 'ONE\n');
  });

  test('a redacted read is not a full view', async () => {
    const c = cases.make();
    c.file('notes.txt', `token ${'ghp_' + 'abcdefghijklmnopqrstuvwxyz0123456789'}\n`);
    const read = await call(c.read, { path: 'notes.txt' });
    assert.ok(read.content !== undefined);
    const e = await expectCode(c.write.handler({ path: 'notes.txt', content: 'x\n' }, ctx), ErrorCode.FILE_STALE_WRITE);
    assert.match(e.message, /partial view/);
  });

  test('a patch from known content keeps the baseline; a blind patch gets Hermes’ own wording', async () => {
    const c = cases.make();
    c.file('a.txt', 'one\ntwo\n');
    await call(c.read, { path: 'a.txt' });
    await call(c.patch, { path: 'a.txt', old_string: 'two', new_string: 'TWO' });
    await call(c.write, { path: 'a.txt', content: 'new\n' });
    assert.equal(c.text('a.txt'), 'new\n');

    c.file('b.txt', 'one\ntwo\n');
    await call(c.patch, { path: 'b.txt', old_string: 'two', new_string: 'TWO' });
    const e = await expectCode(c.write.handler({ path: 'b.txt', content: 'new\n' }, ctx), ErrorCode.FILE_STALE_WRITE);
    assert.match(e.message, /Your patch changed this file without a full view of its current content\./);
  });

  test('a whole notebook shown by read_file counts as a full read of it', async () => {
    const c = cases.make();
    const nb = JSON.stringify({ cells: [{ cell_type: 'code', source: ['x = 1'], metadata: {}, outputs: [], execution_count: null }], metadata: {}, nbformat: 4, nbformat_minor: 5 });
    c.file('n.ipynb', nb);
    await expectCode(c.write.handler({ path: 'n.ipynb', content: nb }, ctx), ErrorCode.FILE_STALE_WRITE);
    const read = await call(c.read, { path: 'n.ipynb' });
    assert.equal(read.extracted_document, true);
    await call(c.write, { path: 'n.ipynb', content: nb.replace('x = 1', 'x = 2') });
    assert.match(c.text('n.ipynb'), /x = 2/);
  });

  test('HERMES_DISABLE_FILE_STATE_GUARD=1 turns the guard off, as in Hermes', async () => {
    const c = cases.make({ guardOff: true });
    c.file('a.txt', 'old\n');
    await call(c.write, { path: 'a.txt', content: 'new\n' });
    assert.equal(c.text('a.txt'), 'new\n');
  });

  test('following Hermes 0.19 the write goes through, with its staleness warning after a partial read', async () => {
    const c = cases.make({ hermes: '0.19.0' });
    const path = c.file('a.txt', 'one\ntwo\n');
    assert.equal((await call(c.write, { path: 'a.txt', content: 'new\nlines\n' }))._warning, undefined, 'never read: no warning');
    await call(c.read, { path: 'a.txt', offset: 1, limit: 1 });
    const r = await call(c.write, { path: 'a.txt', content: 'newer\n' });
    assert.equal(r._warning, `${path} was last read with offset/limit pagination (partial view). Re-read the whole file before overwriting it.`);
    assert.equal(c.text('a.txt'), 'newer\n');
  });
});

describe('write_file: whose reads count', () => {
  const other = { id: 'request:other', kind: 'request' } as const;
  const grant = (principal: string): CallContext['grant'] => ({ kind: 'static', principal, scopes: ['hermes:full'], credential: `static:${principal}` });
  const token = (client: string, digest: string): CallContext['grant'] => ({ kind: 'oauth', principal: client, scopes: ['hermes:full'], credential: `oauth-token:${digest}` });

  test('sessionless requests of one credential share their reads; another credential’s do not count', async () => {
    const c = cases.make();
    c.file('a.txt', 'one\n');
    await call(c.read, { path: 'a.txt' }, as(other, grant('alice')));
    await call(c.write, { path: 'a.txt', content: 'two\n' }, as({ id: 'request:next', kind: 'request' }, grant('alice')));
    assert.equal(c.text('a.txt'), 'two\n');
    c.file('b.txt', 'one\n');
    await call(c.read, { path: 'b.txt' }, as(other, grant('alice')));
    await expectCode(c.write.handler({ path: 'b.txt', content: 'two\n' }, as(other, grant('bob'))), ErrorCode.FILE_STALE_WRITE);
  });

  test('two access tokens of one OAuth client are two credentials: a read under one does not let the other overwrite', async () => {
    const c = cases.make();
    c.file('a.txt', 'one\n');
    await call(c.read, { path: 'a.txt' }, as(other, token('chatgpt', 'aa')));
    await expectCode(c.write.handler({ path: 'a.txt', content: 'two\n' }, as({ id: 'request:next', kind: 'request' }, token('chatgpt', 'bb'))), ErrorCode.FILE_STALE_WRITE);
    await call(c.write, { path: 'a.txt', content: 'two\n' }, as({ id: 'request:next', kind: 'request' }, token('chatgpt', 'aa')));
    assert.equal(c.text('a.txt'), 'two\n');
  });

  test('a session is a task of its own: its reads are its own, and go when it ends', async () => {
    const c = cases.make();
    c.file('a.txt', 'one\n');
    const session = { id: 'cap:s1', kind: 'capability' } as const;
    await call(c.read, { path: 'a.txt' }); // sessionless
    await expectCode(c.write.handler({ path: 'a.txt', content: 'two\n' }, as(session)), ErrorCode.FILE_STALE_WRITE);
    await call(c.read, { path: 'a.txt' }, as(session));
    await expectCode(c.write.handler({ path: 'a.txt', content: 'two\n' }, as({ id: 'cap:s2', kind: 'capability' })), ErrorCode.FILE_STALE_WRITE);
    await call(c.write, { path: 'a.txt', content: 'two\n' }, as(session));
    assert.equal(c.text('a.txt'), 'two\n');
  });

  test('another session’s write after this one read is named as a sibling’s', async () => {
    const c = cases.make();
    const path = c.file('a.txt', 'one\n');
    const s1 = as({ id: 'cap:s1', kind: 'capability' });
    const s2 = as({ id: 'cap:s2', kind: 'capability' });
    await call(c.read, { path: 'a.txt' }, s1);
    await call(c.read, { path: 'a.txt' }, s2);
    await new Promise((r) => setTimeout(r, 5));
    await call(c.write, { path: 'a.txt', content: 'two\n' }, s2);
    const e = await expectCode(c.write.handler({ path: 'a.txt', content: 'three\n' }, s1), ErrorCode.FILE_STALE_WRITE);
    assert.match(e.message, new RegExp(`${path.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} was modified by sibling subagent 'task-[0-9a-f]{8}' at \\d\\d:\\d\\d:\\d\\d — after this agent's last read`));
    assert.ok(!e.message.includes('cap:s2'), 'an owner id is never shown to another owner');
  });
});

describe('read-state: bounds and expiry', () => {
  const page = (real: string) => ({ real, start: 1, end: 1, totalLines: 1, whole: true, altered: false, seen: fs.statSync(real) });

  test('a sessionless credential’s reads expire after fileStateLedgerTtlSeconds', async () => {
    const c = cases.make();
    const real = c.file('a.txt', 'one\n');
    let now = 1_000_000;
    const states = new FileStates({ enabled: true, guard: true, maxPaths: 10, ledgerTtlMs: 60_000, maxLedgers: 4, now: () => now });
    await states.noteRead(ctx, page(real));
    assert.equal(await states.overwriteBlocker(ctx, real), null);
    now += 60_001;
    assert.match(String(await states.overwriteBlocker(ctx, real)), NOT_SEEN);
  });

  test('each state keeps at most maxPaths paths, the oldest forgotten first; released owners keep nothing', async () => {
    const c = cases.make();
    const files = ['a.txt', 'b.txt', 'c.txt'].map((f) => c.file(f, 'x\n'));
    const states = new FileStates({ enabled: true, guard: true, maxPaths: 2, ledgerTtlMs: 60_000, maxLedgers: 1 });
    const owner = as({ id: 'legacy:l1', kind: 'legacy' });
    for (const f of files) await states.noteRead(owner, page(f));
    assert.match(String(await states.overwriteBlocker(owner, files[0]!)), NOT_SEEN);
    assert.equal(await states.overwriteBlocker(owner, files[2]!), null);
    assert.equal(states.size.owners, 1);
    states.release('legacy:l1');
    assert.equal(states.size.owners, 0);
    // One ledger at most: a second credential's pushes the first out.
    await states.noteRead(as({ id: 'request:x', kind: 'request' }, { kind: 'oauth', principal: 'c1', scopes: [], credential: 'oauth-token:1' }), page(files[2]!));
    await states.noteRead(as({ id: 'request:y', kind: 'request' }, { kind: 'oauth', principal: 'c1', scopes: [], credential: 'oauth-token:2' }), page(files[2]!));
    assert.equal(states.size.ledgers, 1);
  });
});

describe('write_file and patch: Hermes 0.22’s other refusals', () => {
  test('documents, SQLite side files, an existing PDF or binary, agent-instruction files and .hermes/* are refused; following 0.19 they are written', async () => {
    const newest = cases.make();
    const old = cases.make({ hermes: '0.19.0' });
    for (const c of [newest, old]) {
      c.file('old.pdf', '%PDF-1.4\n');
      c.file('pic.png', 'png');
    }
    const refusals: Array<[string, RegExp]> = [
      ['r.docx', /^Refusing to write plain text to binary document 'r\.docx' \(\.docx\)\./],
      ['n.rtf', /binary document/],
      ['app.db-wal', /^Refusing to write plain text to binary SQLite sidecar 'app\.db-wal' \(\.db-wal\)\./],
      ['old.pdf', /^Refusing to overwrite existing PDF 'old\.pdf' with plain text\./],
      ['pic.png', /^Refusing to overwrite existing binary file 'pic\.png' \(\.png\)/],
      ['AGENTS.md', /^BLOCKED: write to protected agent-instruction file\(s\) \(AGENTS\.md\) requires approval but no interactive user or gateway is present to approve it\./],
      ['sub/Claude.MD', /\(Claude\.MD\)/],
      ['.hermes/config.yaml', /protected agent-instruction file\(s\) \(.*\/\.hermes\/config\.yaml\)/],
    ];
    for (const [path, message] of refusals) {
      const e = await expectCode(newest.write.handler({ path, content: 'x\n' }, ctx), ErrorCode.FILE_BLOCKED);
      assert.match(e.message, message, path);
      if (!fs.existsSync(old.p(path))) await call(old.write, { path, content: 'x\n' });
    }
    assert.equal(old.text('AGENTS.md'), 'x\n');
    await call(newest.write, { path: 'new.pdf', content: '%PDF-1.4\n' }); // a new PDF may be written
    fs.writeFileSync(newest.p('AGENTS.md'), 'rules\n');
    await expectCode(newest.patch.handler({ path: 'AGENTS.md', old_string: 'rules', new_string: 'more' }, ctx), ErrorCode.FILE_BLOCKED);
  });

  test('Hermes’ own home is not a project: its SOUL.md is not gated', async () => {
    const c = cases.make();
    await call(c.write, { path: c.p('~/SOUL.md'), content: 'me\n' });
    assert.equal(c.text('~/SOUL.md'), 'me\n');
  });

  test('security.protected_instruction_files: false in config.yaml turns that gate off', async () => {
    const c = cases.make();
    c.file('~/config.yaml', 'security:\n  protected_instruction_files: false\n');
    await call(c.write, { path: 'AGENTS.md', content: 'x\n' });
  });

  test('JSON that introduces NaN or Infinity is refused; one already holding it may be edited; a lone surrogate is named as Python shows it', async () => {
    const c = cases.make();
    const e = await expectCode(c.write.handler({ path: 'c.json', content: '{"a": NaN}\n' }, ctx), ErrorCode.INVALID_ARGUMENTS);
    assert.match(e.message, /candidate content uses NaN, which is not valid JSON\. The file was NOT created or modified\. Use null or a string instead and retry\./);
    c.file('d.json', '{"a": Infinity}\n');
    await call(c.read, { path: 'd.json' });
    await call(c.write, { path: 'd.json', content: '{"a": Infinity, "b": -Infinity}\n' });
    await call(c.write, { path: 'e.json', content: '{"a": "NaN"}\n' });
    const s = await expectCode(c.write.handler({ path: 's.txt', content: 'x\ud800y' }, ctx), ErrorCode.INVALID_ARGUMENTS);
    assert.match(s.message, /contains a lone surrogate character \('\\ud800'\) that cannot be encoded as UTF-8/);
    const old = cases.make({ hermes: '0.19.0' });
    await call(old.write, { path: 'c.json', content: '{"a": NaN}\n' }); // Python's json takes NaN
    assert.equal(old.text('c.json'), '{"a": NaN}\n');
  });
});
