import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import { after, describe, test } from 'node:test';
import { ErrorCode, GatewayError } from '../../../../shared/errors.js';
import { compileArgumentValidator } from '../../../../supervisor/core/catalog/catalog.js';
import { Cases, call, ctx, expectCode, text } from '../fixture.js';

const cases = new Cases();
after(() => cases.cleanup());

const lines = (n: number, f: (i: number) => string = (i) => `line ${i}`): string =>
  Array.from({ length: n }, (_, i) => f(i + 1)).join('\n') + '\n';

describe('read_file: content and pagination', () => {
  test('returns the N|line gutter with total_lines, file_size and truncated', async () => {
    const c = cases.make();
    c.file('a.txt', 'alpha\nbeta\n');
    const r = await call(c.read, { path: 'a.txt' });
    assert.equal(r.content, '1|alpha\n2|beta');
    assert.equal(r.total_lines, 2);
    assert.equal(r.file_size, 11);
    assert.equal(r.truncated, false);
    assert.equal(r.hint, undefined);
  });

  // A model's "3" / "2", an offset of 0 and a fraction are read as Hermes reads them
  // (model_tools.py coerce_tool_args, normalize_read_pagination), after the gateway's validator.
  test('offset and limit sent as strings, 0 or fractions read the window Hermes reads', async () => {
    const c = cases.make();
    c.file('a.txt', '1\n2\n3\n4\n5\n');
    const validate = compileArgumentValidator(c.read);
    const read = (args: Record<string, unknown>) => call(c.read, validate(args));
    assert.equal((await read({ path: 'a.txt', offset: '3', limit: '2' })).content, '3|3\n4|4');
    assert.equal((await read({ path: 'a.txt', offset: 0, limit: 1 })).content, '1|1');
    assert.equal((await read({ path: 'a.txt', offset: -4, limit: 2.7 })).content, '1|1\n2|2');
    assert.equal((await read({ path: 'a.txt', offset: '4.0', limit: null })).content, '4|4\n5|5');
    assert.throws(() => validate({ path: 'a.txt', offset: 'abc' }), (e: unknown) => e instanceof GatewayError && e.code === ErrorCode.INVALID_ARGUMENTS && /\/offset must be integer/.test(e.message));
  });

  test('offset and limit select a window and the hint names the next offset', async () => {
    const c = cases.make();
    c.file('a.txt', lines(10));
    const r = await call(c.read, { path: 'a.txt', offset: 3, limit: 4 });
    assert.equal(r.content, '3|line 3\n4|line 4\n5|line 5\n6|line 6');
    assert.equal(r.truncated, true);
    assert.equal(r.hint, 'Use offset=7 to continue reading (showing 3-6 of 10 lines)');
  });

  test('the default limit is 500 lines as Hermes 0.19 reads', async () => {
    const c = cases.make({ hermes: '0.19.0' });
    c.file('a.txt', lines(600));
    const r = await call(c.read, { path: 'a.txt' });
    assert.equal(text(r.content).split('\n').length, 500);
    assert.ok(text(r.content).endsWith('500|line 500'));
    assert.equal(r.truncated, true);
    assert.equal((c.read.inputSchema.properties as Record<string, { default?: unknown }>).limit!.default, 500);
  });

  test('the default limit is 2000 lines as newer Hermes reads (0.21.2 on), in the schema too', async () => {
    for (const hermes of ['0.21.2', undefined]) {
      const c = cases.make({ hermes });
      c.file('a.txt', lines(2500));
      const r = await call(c.read, { path: 'a.txt' });
      assert.equal(text(r.content).split('\n').length, 2000, String(hermes));
      assert.equal(r.hint, 'Use offset=2001 to continue reading (showing 1-2000 of 2500 lines)');
      assert.equal((c.read.inputSchema.properties as Record<string, { default?: unknown }>).limit!.default, 2000);
    }
    const before = cases.make({ hermes: '0.21.1' });
    before.file('a.txt', lines(600));
    assert.equal(text((await call(before.read, { path: 'a.txt' })).content).split('\n').length, 500);
  });

  test('a limit above 2000 is clamped to 2000 for direct callers', async () => {
    const c = cases.make();
    c.file('a.txt', lines(2500, () => 'x'));
    const r = await call(c.read, { path: 'a.txt', limit: 5000 });
    assert.equal(text(r.content).split('\n').length, 2000);
    assert.equal(r.hint, 'Use offset=2001 to continue reading (showing 1-2000 of 2500 lines)');
  });

  test('a final line without a newline is a line', async () => {
    const c = cases.make();
    c.file('a.txt', 'one\ntwo');
    const r = await call(c.read, { path: 'a.txt' });
    assert.equal(r.content, '1|one\n2|two');
    assert.equal(r.total_lines, 2);
  });

  test('lines longer than 2000 characters are cut with "... [truncated]"', async () => {
    const c = cases.make();
    c.file('a.txt', 'y'.repeat(2500) + '\nshort\n');
    const r = await call(c.read, { path: 'a.txt' });
    assert.equal(r.content, `1|${'y'.repeat(2000)}... [truncated]\n2|short`);
  });

  // Hermes' read budget: cut on a line boundary with a next_offset (tools/file_tools.py _truncate_to_char_budget).
  test('formatted content over 100,000 characters is cut on a line boundary with next_offset', async () => {
    const c = cases.make();
    c.file('big.txt', lines(60, () => 'z'.repeat(1990)));
    const r = await call(c.read, { path: 'big.txt' });
    assert.equal(text(r.content).split('\n').length, 50);
    assert.ok(text(r.content).endsWith(`50|${'z'.repeat(1990)}`));
    assert.equal(r.truncated, true);
    assert.equal(r.truncated_by, 'bytes');
    assert.equal(r.next_offset, 51);
    assert.equal(r.total_lines, 60);
    assert.equal(r.hint, 'Output truncated at the 100,000-char read budget after 50 line(s) (showing lines 1-50 of 60). Use offset=51 to continue.');
    // The rest follows from next_offset.
    const rest = await call(c.read, { path: 'big.txt', offset: 51 });
    assert.equal(text(rest.content).split('\n').length, 10);
    assert.equal(rest.truncated, false);
  });

  test('the read budget leaves room under the result cap, so a page is cut instead of the result', async () => {
    const c = cases.make({ maxOutputChars: 65_536 });
    c.file('big.txt', lines(60, () => 'z'.repeat(1990)));
    const r = await call(c.read, { path: 'big.txt' });
    assert.equal(r.next_offset, 33);
    assert.ok(JSON.stringify(r).length <= 65_536);
    assert.match(text(r.hint), /^Output truncated at the 64,512-char read budget after 32 line\(s\) \(showing lines 1-32 of 60\)\. Use offset=33 to continue\.$/);
    // JSON escaping counts: a line of quotes costs twice its length.
    c.file('quotes.txt', lines(40, () => '"'.repeat(1990)));
    const q = await call(c.read, { path: 'quotes.txt' });
    assert.equal(q.next_offset, 17);
    assert.ok(JSON.stringify(q).length <= 65_536);
  });

  test('lines are cut at 2000 characters, not UTF-16 units', async () => {
    const c = cases.make();
    c.file('emoji.txt', '\u{1F600}'.repeat(1500) + '\n' + '\u{1F600}'.repeat(2001) + '\n');
    const r = await call(c.read, { path: 'emoji.txt' });
    const [first, second] = text(r.content).split('\n');
    assert.equal(first, '1|' + '\u{1F600}'.repeat(1500));
    assert.equal(second, '2|' + '\u{1F600}'.repeat(2000) + '... [truncated]');
  });

  // As Hermes 0.19: no lines and no hint (total_lines says how far the file goes).
  test('an offset past the end returns empty content (Hermes 0.19)', async () => {
    const c = cases.make({ hermes: '0.19.0' });
    c.file('a.txt', lines(3));
    const r = await call(c.read, { path: 'a.txt', offset: 9 });
    assert.equal(r.content, '');
    assert.equal(r.total_lines, 3);
    assert.equal(r.truncated, false);
    assert.equal(r.hint, undefined);
  });

  test('an empty file has no lines (Hermes 0.19)', async () => {
    const c = cases.make({ hermes: '0.19.0' });
    c.file('e.txt', '');
    const r = await call(c.read, { path: 'e.txt' });
    assert.deepEqual(r, { content: '', total_lines: 0, file_size: 0, truncated: false, is_binary: false, is_image: false });
  });

  // Hermes 0.20.5 on names both dead ends; 0.22 adds not_found to every answer.
  test('an offset past the end and an empty file say so (Hermes 0.20.5 on)', async () => {
    const c = cases.make({ hermes: '0.20.5' });
    c.file('a.txt', 'a\nb\nc');
    c.file('e.txt', '');
    const past = await call(c.read, { path: 'a.txt', offset: 4 });
    assert.deepEqual(past, {
      content: '',
      total_lines: 3,
      file_size: 5,
      truncated: false,
      is_binary: false,
      is_image: false,
      hint: 'Note: offset 4 is beyond the end of the file (3 lines total). Retry with offset <= 3.',
    });
    // The last line without a newline is a line (upstream issue #83022's case): offset 3 reads it.
    assert.equal((await call(c.read, { path: 'a.txt', offset: 3 })).content, '3|c');
    const empty = await call(c.read, { path: 'e.txt', offset: 7 });
    assert.deepEqual(empty, { content: '', total_lines: 0, file_size: 0, truncated: false, is_binary: false, is_image: false, hint: 'File is empty (0 bytes).' });
    const n = cases.make();
    n.file('e.txt', '');
    const newest = await call(n.read, { path: 'e.txt' });
    assert.equal(newest.not_found, false);
    assert.equal(newest.hint, 'File is empty (0 bytes).');
  });

  test('a notebook is read as its cells', async () => {
    const c = cases.make();
    c.file('nb.ipynb', JSON.stringify({ cells: [{ cell_type: 'markdown', source: ['# T\n', 'x'] }, { cell_type: 'code', source: 'print(1)\n' }] }));
    const r = await call(c.read, { path: 'nb.ipynb' });
    assert.equal(r.content, '1|# ── Markdown cell 1 ──\n2|# T\n3|x\n4|\n5|# ── Code cell 1 ──\n6|print(1)');
    assert.equal(r.extracted_document, true);
    assert.equal(r.total_lines, 6);
  });

  test('a UTF-8 BOM is not shown', async () => {
    const c = cases.make();
    c.file('bom.txt', '\ufeffhello\n');
    const r = await call(c.read, { path: 'bom.txt' });
    assert.equal(r.content, '1|hello');
  });

  test('secrets in content are redacted', async () => {
    const c = cases.make();
    const key = 'sk-' + 'A1b2C3d4E5f6G7h8I9j0K1l2';
    c.file('cfg.py', `client = make("${key}")\n`);
    const r = await call(c.read, { path: 'cfg.py' });
    assert.ok(!text(r.content).includes(key));
    assert.match(text(r.content), /^1\|client = make\(/);
  });
});

describe('read_file: path resolution', () => {
  test("relative paths resolve against the owner's cwd (cwdFor gets the owner id)", async () => {
    const c = cases.make();
    c.file('sub/a.txt', 'x\n');
    await call(c.read, { path: 'sub/a.txt' });
    assert.deepEqual(c.owners, ['request:t']);
  });

  test('~ expands to the home directory', async () => {
    const c = cases.make();
    c.file('h.txt', 'home file\n');
    const saved = process.env.HOME;
    process.env.HOME = c.proj;
    try {
      const r = await call(c.read, { path: '~/h.txt' });
      assert.equal(r.content, '1|home file');
    } finally {
      process.env.HOME = saved;
    }
  });
});

describe('read_file: refusals', () => {
  test('a missing file suggests similar names from the same directory, with Hermes\' empty read fields (0.19)', async () => {
    const c = cases.make({ hermes: '0.19.0' });
    c.file('config.yaml', 'a: 1\n');
    c.file('unrelated.md', 'x\n');
    const e = await expectCode(c.read.handler({ path: 'config.yml' }, ctx), ErrorCode.FILE_NOT_FOUND);
    // Hermes' words, then where the relative path was looked for and the roots the tools reach.
    assert.equal(e.message, `File not found: config.yml (looked for ${c.p('config.yml')}; project roots: ${c.root})`);
    assert.deepEqual(e.details, { content: '', total_lines: 0, file_size: 0, truncated: false, is_binary: false, is_image: false, similar_files: ['config.yaml'] });
    // No similar name: no similar_files at all (Hermes drops an empty list).
    const none = await expectCode(c.read.handler({ path: 'zzz.py' }, ctx), ErrorCode.FILE_NOT_FOUND);
    assert.equal(none.details?.similar_files, undefined);
  });

  test('unconfined (HERMES_MCP_FILE_ACCESS=hermes), a missing file names only the path looked for, and nothing when Hermes named it', async () => {
    const c = cases.make({ hermes: '0.19.0', access: 'hermes' });
    const relative = await expectCode(c.read.handler({ path: 'README.md' }, ctx), ErrorCode.FILE_NOT_FOUND);
    assert.equal(relative.message, `File not found: README.md (looked for ${c.p('README.md')})`);
    const absolute = await expectCode(c.read.handler({ path: c.p('README.md') }, ctx), ErrorCode.FILE_NOT_FOUND);
    assert.equal(absolute.message, `File not found: ${c.p('README.md')}`);
  });

  test('a near-miss spelling is suggested too (0.19)', async () => {
    const c = cases.make({ hermes: '0.19.0' });
    c.file('docs/AGENTS.md', 'x\n');
    const e = await expectCode(c.read.handler({ path: 'docs/AGENT.md' }, ctx), ErrorCode.FILE_NOT_FOUND);
    assert.deepEqual(e.details?.similar_files, ['docs/AGENTS.md']);
  });

  // Newer Hermes names the resolved path, marks the answer not_found, and scores near misses (difflib ratio >= 0.8).
  test('a missing file names its resolved path, with not_found and near-miss suggestions (newer Hermes)', async () => {
    const c = cases.make();
    c.file('README', 'x\n');
    c.file('settings.toml', 'y\n');
    const e = await expectCode(c.read.handler({ path: 'REAMDE' }, ctx), ErrorCode.FILE_NOT_FOUND);
    // The path is named already: only the roots follow.
    assert.equal(e.message, `File not found: ${c.p('REAMDE')} (project roots: ${c.root})`);
    assert.deepEqual(e.details, {
      content: '',
      total_lines: 0,
      file_size: 0,
      truncated: false,
      is_binary: false,
      is_image: false,
      not_found: true,
      similar_files: [c.p('README')],
    });
    const typo = await expectCode(c.read.handler({ path: 'setings.yml' }, ctx), ErrorCode.FILE_NOT_FOUND);
    assert.deepEqual(typo.details?.similar_files, [c.p('settings.toml')]);
    // 0.19 scored neither.
    const old = cases.make({ hermes: '0.19.0' });
    old.file('README', 'x\n');
    assert.equal((await expectCode(old.read.handler({ path: 'REAMDE' }, ctx), ErrorCode.FILE_NOT_FOUND)).details?.similar_files, undefined);
  });

  test('a dangling symlink is its missing target (newer Hermes)', async () => {
    const c = cases.make();
    fs.symlinkSync('gone.txt', c.p('dangling.txt'));
    const e = await expectCode(c.read.handler({ path: 'dangling.txt' }, ctx), ErrorCode.FILE_NOT_FOUND);
    assert.equal(e.message, `File not found: ${c.p('gone.txt')} (project roots: ${c.root})`);
    assert.equal(e.details?.not_found, true);
  });

  test('a missing name read under its one unicode-equivalent spelling, with a note (newer Hermes)', async () => {
    const c = cases.make();
    const nfd = 'cafe\u0301.txt';
    c.file(nfd, 'x\n');
    const r = await call(c.read, { path: 'caf\u00e9.txt' });
    assert.equal(r.content, '1|x');
    assert.equal(
      r.hint,
      `Note: '${c.p('caf\u00e9.txt')}' not found byte-for-byte; resolved to the unicode-equivalent file '${c.p(nfd)}' ` +
        '(invisible encoding difference: NFC/NFD or special space/quote characters).',
    );
    // A no-break space and a curly quote are the same name too; two candidates are a collision.
    c.file('it\u2019s\u00a0here.txt', 'y\n');
    assert.equal((await call(c.read, { path: "it's here.txt" })).content, '1|y');
    c.file('dup\u00a0x.txt', '1\n');
    c.file('dup\u202fx.txt', '2\n');
    await expectCode(c.read.handler({ path: 'dup x.txt' }, ctx), ErrorCode.FILE_NOT_FOUND);
    // Hermes 0.19 does not look.
    const old = cases.make({ hermes: '0.19.0' });
    old.file(nfd, 'x\n');
    await expectCode(old.read.handler({ path: 'caf\u00e9.txt' }, ctx), ErrorCode.FILE_NOT_FOUND);
  });

  test('the unicode-equivalent file is read under the same checks: the roots and Hermes\' read blocks', async () => {
    const c = cases.make();
    fs.mkdirSync(c.p('inside'));
    // A variant that is a symlink out of the roots is refused as any path leading out is.
    const outside = fs.mkdtempSync(`${cases.base}/outside-`);
    fs.writeFileSync(`${outside}/secret.txt`, 'out\n');
    fs.symlinkSync(`${outside}/secret.txt`, c.p('inside/cafe\u0301.txt'));
    await expectCode(c.read.handler({ path: 'inside/caf\u00e9.txt' }, ctx), ErrorCode.PATH_OUTSIDE_ROOTS);
    // A variant that is a link to a Hermes credential store is blocked as the store is.
    c.file('~/auth.json', '{"token": "x"}\n');
    fs.symlinkSync(c.p('~/auth.json'), c.p('inside/it\u2019s.json'));
    const e = await expectCode(c.read.handler({ path: "inside/it's.json" }, ctx), ErrorCode.FILE_BLOCKED);
    assert.match(e.message, /is a Hermes credential store/);
    assert.match(String(e.details?.hint), /^Note: '.*it's\.json' not found byte-for-byte; resolved to the unicode-equivalent file/);
  });

  // Hermes 0.19's content check: more than 30% control characters in the first 1000 is binary.
  test('files mostly of control characters are refused as binary (0.19)', async () => {
    const c = cases.make({ hermes: '0.19.0' });
    c.file('blob', Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 1, 2, 3]));
    const e = await expectCode(c.read.handler({ path: 'blob' }, ctx), ErrorCode.FILE_BINARY);
    assert.equal(e.message, 'Binary file - cannot display as text. Use appropriate tools to handle this file type.');
    assert.deepEqual(e.details, { content: '', total_lines: 0, file_size: 8, truncated: false, is_binary: true, is_image: false });
  });

  test('a stray NUL in text is shown, not refused (0.19)', async () => {
    const c = cases.make({ hermes: '0.19.0' });
    c.file('log.txt', 'header line\nabc\0def\nplain text line\n');
    const r = await call(c.read, { path: 'log.txt' });
    assert.equal(r.content, '1|header line\n2|abc\0def\n3|plain text line');
  });

  test('invalid UTF-8 is shown with replacement characters (0.19)', async () => {
    const c = cases.make({ hermes: '0.19.0' });
    c.file('latin1.txt', Buffer.from([0x61, 0xe9, 0x62, 0x63, 0x0a, 0x64]));
    const r = await call(c.read, { path: 'latin1.txt' });
    assert.equal(r.content, '1|a\ufffdbc\n2|d');
  });

  // Newer Hermes decides by bytes (upstream issue #80308): a NUL or invalid UTF-8 in the first 1000 is binary.
  test('binary is decided by bytes and refused with its type named (newer Hermes)', async () => {
    const c = cases.make();
    const fields = { content: '', total_lines: 0, truncated: false, is_binary: true, is_image: false, not_found: false };
    c.file('prog', Buffer.concat([Buffer.from('7f454c4602010100', 'hex'), Buffer.alloc(28, 0)]));
    const elf = await expectCode(c.read.handler({ path: 'prog' }, ctx), ErrorCode.FILE_BINARY);
    assert.equal(elf.message, 'Binary file (ELF executable, 36 bytes) — cannot display as text.');
    assert.deepEqual(elf.details, { ...fields, file_size: 36 });
    c.file('latin1.txt', Buffer.from([0x61, 0xe9, 0x62, 0x63, 0x0a, 0x64]));
    assert.equal((await expectCode(c.read.handler({ path: 'latin1.txt' }, ctx), ErrorCode.FILE_BINARY)).message, 'Binary file (unknown binary, 6 bytes) — cannot display as text.');
    c.file('log.txt', 'header\nabc\0def\n');
    await expectCode(c.read.handler({ path: 'log.txt' }, ctx), ErrorCode.FILE_BINARY);
    c.file('big.bin.txt', Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(2048, 0)]));
    assert.equal((await expectCode(c.read.handler({ path: 'big.bin.txt' }, ctx), ErrorCode.FILE_BINARY)).message, 'Binary file (PDF document, 2.0 KB) — cannot display as text.');
    // Mostly control characters but valid UTF-8 without a NUL is text; a multibyte character cut at the
    // end of the 1000-byte sample is not invalid.
    c.file('ctl.txt', Buffer.from([1, 2, 3, 4, 5, 6, 0x0a]));
    assert.equal((await call(c.read, { path: 'ctl.txt' })).content, '1|\x01\x02\x03\x04\x05\x06');
    c.file('cut.txt', Buffer.concat([Buffer.alloc(999, 0x61), Buffer.from('é\n')]));
    assert.equal((await call(c.read, { path: 'cut.txt' })).total_lines, 1);
  });

  test('UTF-16 text is shown transcoded, with the lines it holds (newer Hermes)', async () => {
    const c = cases.make();
    c.file('le.txt', Buffer.from('\ufeffone\r\ntwo\n', 'utf16le'));
    const le = await call(c.read, { path: 'le.txt' });
    assert.deepEqual(le, {
      content: '1|one\n2|two',
      total_lines: 2,
      file_size: 20,
      truncated: false,
      is_binary: false,
      is_image: false,
      not_found: false,
      hint: 'Transcoded from UTF-16-LE to UTF-8 for display. Text edits via patch/write_file would re-encode as UTF-8.',
    });
    // Big-endian without a byte-order mark: told by the zero bytes at even offsets.
    c.file('be.txt', Buffer.from('hi\nthere\nagain', 'utf16le').swap16());
    const be = await call(c.read, { path: 'be.txt', offset: 2, limit: 1 });
    assert.equal(be.content, '2|there');
    assert.equal(be.truncated, true);
    assert.equal(
      be.hint,
      'Transcoded from UTF-16-BE to UTF-8 for display. Text edits via patch/write_file would re-encode as UTF-8. Use offset=3 to continue reading (showing 2-2 of 3 lines)',
    );
    // Zero bytes at both parities are no UTF-16: binary.
    c.file('mixed.txt', Buffer.from([0x61, 0, 0, 0x62, 0x63, 0, 0, 0x64]));
    await expectCode(c.read.handler({ path: 'mixed.txt' }, ctx), ErrorCode.FILE_BINARY);
    // Hermes 0.19 refuses UTF-16 as binary.
    const old = cases.make({ hermes: '0.19.0' });
    old.file('le.txt', Buffer.from('\ufeffone\n', 'utf16le'));
    assert.equal((await expectCode(old.read.handler({ path: 'le.txt' }, ctx), ErrorCode.FILE_BINARY)).message, 'Binary file - cannot display as text. Use appropriate tools to handle this file type.');
  });

  test('a cut line sets truncated_lines and merge conflicts are counted (newer Hermes)', async () => {
    const c = cases.make();
    c.file('long.txt', 'y'.repeat(2001) + '\nok\n');
    assert.equal((await call(c.read, { path: 'long.txt' })).truncated_lines, true);
    assert.equal((await call(c.read, { path: 'long.txt', offset: 2 })).truncated_lines, undefined);
    c.file('merge.txt', 'a\n<<<<<<< HEAD\nours\n=======\ntheirs\n>>>>>>> topic\nb\n<<<<<<< only an opening marker\n');
    const r = await call(c.read, { path: 'merge.txt' });
    assert.equal(r.conflict_blocks, 1);
    assert.equal(
      r._hint,
      '1 unresolved git merge-conflict block(s) (<<<<<<< / ======= / >>>>>>>) in this range. Resolve them (keep one side or combine, delete the markers) before editing around them.',
    );
    // A lone marker is no conflict; a page without the closing marker counts none.
    assert.equal((await call(c.read, { path: 'merge.txt', limit: 3 })).conflict_blocks, undefined);
    const old = cases.make({ hermes: '0.19.0' });
    old.file('merge.txt', '<<<<<<< a\nx\n>>>>>>> b\n' + 'y'.repeat(2001) + '\n');
    const r19 = await call(old.read, { path: 'merge.txt' });
    assert.equal(r19.conflict_blocks, undefined);
    assert.equal(r19.truncated_lines, undefined);
  });

  // The pointer to vision_analyze comes only with Hermes' tool server serving it (tests/tools/hermes-tools/descriptions).
  test('images are refused by extension; without vision_analyze catalogued, terminal is the pointer', async () => {
    const c = cases.make();
    c.file('pic.png', 'not really a png');
    const e = await expectCode(c.read.handler({ path: 'pic.png' }, ctx), ErrorCode.FILE_BINARY);
    assert.match(e.message, /Cannot read binary file 'pic.png' \(\.png\)\. Use terminal to inspect binary files\.$/);
    assert.equal(e.details, undefined); // Hermes answers this refusal with its error alone
  });

  test('device paths are refused without reading them', async () => {
    const c = cases.make({ access: 'hermes' }); // outside any root: Hermes' own deny list, unconfined
    const e = await expectCode(c.read.handler({ path: '/dev/zero' }, ctx), ErrorCode.FILE_BLOCKED);
    assert.match(e.message, /device file that would block or produce infinite output/);
  });

  test('a symlink to a device is refused as a device', async () => {
    const c = cases.make({ access: 'hermes' }); // outside any root: Hermes' own deny list, unconfined
    fs.symlinkSync('/dev/urandom', c.p('rand'));
    await expectCode(c.read.handler({ path: 'rand' }, ctx), ErrorCode.FILE_BLOCKED);
  });

  test('/proc/<pid>/environ is refused', async () => {
    const c = cases.make({ access: 'hermes' }); // outside any root: Hermes' own deny list, unconfined
    await expectCode(c.read.handler({ path: `/proc/${process.pid}/environ` }, ctx), ErrorCode.FILE_BLOCKED);
  });

  test('a directory is not a regular file', async () => {
    const c = cases.make();
    fs.mkdirSync(c.p('dir'));
    const e = await expectCode(c.read.handler({ path: 'dir' }, ctx), ErrorCode.FILE_NOT_REGULAR);
    assert.equal(e.message, `Cannot read '${c.p('dir')}': not a regular file (directory, dangling symlink, FIFO, socket, or device). Reading it could block indefinitely.`);
    assert.equal(e.details?.not_found, false);
    const old = cases.make({ hermes: '0.19.0' });
    fs.mkdirSync(old.p('dir'));
    const e19 = await expectCode(old.read.handler({ path: 'dir' }, ctx), ErrorCode.FILE_NOT_REGULAR);
    assert.equal(e19.message, "Cannot read 'dir': not a regular file (directory, FIFO, socket, or device). Reading it could block indefinitely.");
  });

  // Hermes v0.23 lists a directory; its rules could not be read (docs/hermes-versions.md#read_file),
  // so a gateway told it fronts 0.23.5 keeps 0.22.2's refusal.
  test('a directory is not a regular file for a Hermes 0.23.5 too', async () => {
    const c = cases.make({ hermes: '0.23.5' });
    fs.mkdirSync(c.p('dir'));
    const e = await expectCode(c.read.handler({ path: 'dir' }, ctx), ErrorCode.FILE_NOT_REGULAR);
    assert.equal(e.message, `Cannot read '${c.p('dir')}': not a regular file (directory, dangling symlink, FIFO, socket, or device). Reading it could block indefinitely.`);
  });

  test('a FIFO is refused without blocking', async () => {
    const c = cases.make();
    execFileSync('mkfifo', [c.p('pipe')]);
    const e = await expectCode(c.read.handler({ path: 'pipe' }, ctx), ErrorCode.FILE_NOT_REGULAR);
    const note = "'pipe' is a FIFO (named pipe), not a regular file — reading it would block indefinitely, so no read was attempted. Use terminal utilities if you need to interact with it.";
    assert.equal(e.message, note);
    assert.deepEqual(e.details, { success: false, note });
    const old = cases.make({ hermes: '0.19.0' });
    execFileSync('mkfifo', [old.p('pipe')]);
    await expectCode(old.read.handler({ path: 'pipe' }, ctx), ErrorCode.FILE_NOT_REGULAR);
  });

  test('$HERMES_HOME/auth.json is a blocked credential store', async () => {
    const c = cases.make();
    c.file('~/auth.json', '{"token": "x"}\n');
    const e = await expectCode(c.read.handler({ path: c.p('~/auth.json') }, ctx), ErrorCode.FILE_BLOCKED);
    assert.match(e.message, /is a Hermes credential store/);
  });

  test('$HERMES_HOME/.env is blocked, also through a symlink', async () => {
    const c = cases.make();
    c.file('~/.env', 'OPENAI_API_KEY=x\n');
    fs.symlinkSync(c.p('~/.env'), c.p('innocent.txt'));
    await expectCode(c.read.handler({ path: c.p('~/.env') }, ctx), ErrorCode.FILE_BLOCKED);
    await expectCode(c.read.handler({ path: 'innocent.txt' }, ctx), ErrorCode.FILE_BLOCKED);
  });

  test('project .env files are blocked but .env.example is readable', async () => {
    const c = cases.make();
    c.file('.env.local', 'DB_PASSWORD=x\n');
    c.file('.env.example', 'DB_PASSWORD=\n');
    const e = await expectCode(c.read.handler({ path: '.env.local' }, ctx), ErrorCode.FILE_BLOCKED);
    assert.match(e.message, /secret-bearing environment file/);
    const r = await call(c.read, { path: '.env.example' });
    assert.equal(r.content, '1|DB_PASSWORD=');
  });

  test('the skills hub cache is blocked', async () => {
    const c = cases.make();
    c.file('~/skills/.hub/index-cache/x.json', '{}\n');
    const e = await expectCode(c.read.handler({ path: c.p('~/skills/.hub/index-cache/x.json') }, ctx), ErrorCode.FILE_BLOCKED);
    assert.match(e.message, /internal Hermes cache file/);
  });

  test('credential files of the Hermes root are blocked when running under a profile', async () => {
    const c = cases.make({ homeRel: 'hermes/profiles/work' });
    const rootAuth = c.file('../hermes/auth.json', '{}\n');
    await expectCode(c.read.handler({ path: rootAuth }, ctx), ErrorCode.FILE_BLOCKED);
  });
});
