import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { ErrorCode } from '../../../../shared/errors.js';
import type { CallContext } from '../../../../supervisor/core/tool-types.js';
import { SEARCH_MAX_FILE_BYTES } from '../../../../supervisor/tools/files/search/index.js';
import { defaultLimits, loadLimits } from '../../../../shared/limits.js';
import { Cases, call, ctx, expectCode, outcome, type Case, text } from '../fixture.js';

const cases = new Cases();
after(() => cases.cleanup());

/** One content match of search_files (Hermes' {path, line, content}). */
interface Match {
  path: string;
  line: number;
  content: string;
}

/** The `matches` of a search_files result, checked to be an array of {path, line, content}. */
function matchesOf(structured: Record<string, unknown> | undefined): Match[] {
  const matches = structured?.matches;
  assert.ok(Array.isArray(matches), 'the result has a matches array');
  for (const m of matches as unknown[]) {
    const { path, line, content } = (m ?? {}) as Record<string, unknown>;
    assert.ok(typeof path === 'string' && typeof line === 'number' && typeof content === 'string', `not a {path, line, content} match: ${JSON.stringify(m)}`);
  }
  return matches as Match[];
}

function project(): Case {
  const c = cases.make();
  c.file('src/app.ts', 'import x from "y";\nconst answer = 42;\nexport default answer;\n');
  c.file('src/util.ts', 'export const answer = 41;\n// answer again\n');
  c.file('README.md', '# Answer\nThe answer is here.\n');
  return c;
}

describe('search_files: content', () => {
  test('returns {path, line, content} matches with total_count', async () => {
    const c = project();
    const r = await call(c.search, { pattern: 'const answer' });
    assert.equal(r.total_count, 2);
    assert.deepEqual(r.matches, [
      { path: './src/app.ts', line: 2, content: 'const answer = 42;' },
      { path: './src/util.ts', line: 1, content: 'export const answer = 41;' },
    ]);
    // Hermes' SearchResult.to_dict leaves a false `truncated` out.
    assert.equal('truncated' in r, false);
  });

  test('paths are shown relative to the path argument as given', async () => {
    const c = project();
    const r = await call(c.search, { pattern: '42', path: 'src' });
    assert.deepEqual(r.matches, [{ path: 'src/app.ts', line: 2, content: 'const answer = 42;' }]);
    const abs = await call(c.search, { pattern: '42', path: c.p('src') });
    assert.equal(matchesOf(abs)[0]?.path, join(c.proj, 'src/app.ts'));
  });

  test('output_mode files_only lists matching files', async () => {
    const c = project();
    const r = await call(c.search, { pattern: 'answer', output_mode: 'files_only' });
    assert.deepEqual(r.files, ['./README.md', './src/app.ts', './src/util.ts']);
    assert.equal(r.total_count, 3);
    assert.equal(r.matches, undefined);
  });

  test('output_mode count gives matching lines per file', async () => {
    const c = project();
    const r = await call(c.search, { pattern: 'answer', output_mode: 'count' });
    assert.deepEqual(r.counts, { './README.md': 1, './src/app.ts': 2, './src/util.ts': 2 });
    assert.equal(r.total_count, 5);
  });

  test('context adds neighbouring lines, merged and in order', async () => {
    const c = cases.make();
    c.file('f.txt', 'l1\nl2\nHIT3\nl4\nHIT5\nl6\nl7\nl8\n');
    const r = await call(c.search, { pattern: 'HIT', context: 1 });
    assert.deepEqual(
      matchesOf(r).map((m) => `${m.line}:${m.content}`),
      ['2:l2', '3:HIT3', '4:l4', '5:HIT5', '6:l6'],
    );
  });

  test('file_glob restricts the files searched', async () => {
    const c = project();
    const r = await call(c.search, { pattern: 'answer', file_glob: '*.md', output_mode: 'files_only' });
    assert.deepEqual(r.files, ['./README.md']);
    const nested = await call(c.search, { pattern: 'answer', file_glob: 'src/u*.ts', output_mode: 'files_only' });
    assert.deepEqual(nested.files, ['./src/util.ts']);
  });

  test('offset/limit paginate; following Hermes 0.22 a truncated page carries the hint as _hint', async () => {
    const c = cases.make();
    c.file('many.txt', Array.from({ length: 10 }, (_, i) => `item ${i + 1}`).join('\n') + '\n');
    const o = await outcome(c.search, { pattern: 'item', offset: 2, limit: 3 });
    assert.deepEqual(matchesOf(o.structured).map((m) => m.line), [3, 4, 5]);
    assert.equal(o.structured?._hint, 'Results truncated. Use offset=5 to see more, or narrow with a more specific pattern or file_glob.');
    assert.equal(o.content, undefined);
  });

  test('following Hermes 0.19 offset/limit paginate, and a truncated page carries the trailing hint', async () => {
    const c = cases.make({ hermes: '0.19.0' });
    c.file('many.txt', Array.from({ length: 10 }, (_, i) => `item ${i + 1}`).join('\n') + '\n');
    const o = await outcome(c.search, { pattern: 'item', offset: 2, limit: 3 });
    const r = o.structured;
    assert.ok(r);
    assert.deepEqual(matchesOf(r).map((m) => m.line), [3, 4, 5]);
    assert.equal(r.truncated, true);
    assert.equal(r.total_count_is_lower_bound, true);
    assert.deepEqual(o.content, [
      { type: 'text', text: '[Hint: Results truncated. Use offset=5 to see more, or narrow with a more specific pattern or file_glob.]' },
    ]);
    const last = await outcome(c.search, { pattern: 'item', offset: 8, limit: 3 });
    assert.deepEqual(matchesOf(last.structured).map((m) => m.line), [9, 10]);
    assert.equal(last.structured && 'truncated' in last.structured, false);
    assert.equal(last.content, undefined);
  });

  test('an invalid regex is INVALID_ARGUMENTS', async () => {
    const c = project();
    const e = await expectCode(c.search.handler({ pattern: 'foo(' }, ctx), ErrorCode.INVALID_ARGUMENTS);
    assert.match(e.message, /Invalid regex pattern/);
  });

  test('a leading (?i) makes the search case-insensitive', async () => {
    const c = project();
    const r = await call(c.search, { pattern: '(?i)^# ANSWER' });
    assert.deepEqual(r.matches, [{ path: './README.md', line: 1, content: '# Answer' }]);
  });

  test('following Hermes 0.22 a pattern with \\n matches across lines (each line of a match reported), and says so', async () => {
    const c = cases.make();
    c.file('m.txt', 'a\nfoo\nbar\nz\n');
    const r = await call(c.search, { pattern: 'foo\\nbar' });
    assert.deepEqual(matchesOf(r).map((m) => [m.line, m.content]), [[2, 'foo'], [3, 'bar']]);
    assert.equal(r.warning, 'Pattern contains \\n — multiline mode (-U) was enabled automatically so the regex can match across line boundaries.');
  });

  test('following Hermes 0.22 a search that finds nothing says where the pattern would match', async () => {
    const c = cases.make();
    c.file('a.txt', 'Needle\n');
    c.file('.hidden/b.txt', 'needle\n');
    const r = await call(c.search, { pattern: 'needle' });
    assert.equal(r.warning, "0 exact matches, but 1 case-insensitive match(es) in 1 file(s): ./a.txt — the pattern's casing may be wrong.");
    const hidden = await call(c.search, { pattern: 'needle$', file_glob: '*.txt', path: '.' });
    assert.match(text(hidden.warning), /^0 exact matches, but 1 case-insensitive/);
    const literal = await call(c.search, { pattern: 'N(e)edle', path: 'a.txt' });
    assert.equal(literal.warning, undefined, 'nothing anywhere: no warning');
  });

  test('following Hermes 0.19 search is line-oriented: a pattern with \\n finds nothing and says why, as Hermes does', async () => {
    const c = cases.make({ hermes: '0.19.0' });
    c.file('m.txt', 'a\nfoo\nbar\nz\n');
    const r = await call(c.search, { pattern: 'foo\\nbar' });
    assert.equal(r.total_count, 0);
    assert.equal('matches' in r, false);
    assert.match(text(r.warning), /line-oriented and does not run ripgrep with -U\/--multiline/);
    // An escaped backslash before n is a literal backslash+n, searched as usual.
    c.file('lit.txt', 'say \\n here\n');
    const lit = await call(c.search, { pattern: '\\\\n', path: 'lit.txt' });
    assert.deepEqual(matchesOf(lit).map((m) => m.line), [1]);
  });

  test('the walk honours .ignore everywhere and .gitignore inside a git repository, and a glob overrides both', async () => {
    const c = cases.make();
    c.file('repo/.git/HEAD', 'ref: refs/heads/main\n');
    c.file('repo/.gitignore', 'build/\n*.log\n!keep.log\n');
    c.file('repo/build/out.txt', 'needle\n');
    c.file('repo/drop.log', 'needle\n');
    c.file('repo/keep.log', 'needle\n');
    c.file('repo/src/a.txt', 'needle\n');
    c.file('plain/.gitignore', 'skipped.txt\n');
    c.file('plain/.ignore', 'ignored.txt\n');
    c.file('plain/skipped.txt', 'needle\n');
    c.file('plain/ignored.txt', 'needle\n');
    const repo = await call(c.search, { pattern: 'needle', path: 'repo', output_mode: 'files_only' });
    assert.deepEqual(repo.files, ['repo/keep.log', 'repo/src/a.txt']);
    const plain = await call(c.search, { pattern: 'needle', path: 'plain', output_mode: 'files_only' });
    assert.deepEqual(plain.files, ['plain/skipped.txt']);
    const globbed = await call(c.search, { pattern: 'needle', path: 'repo', file_glob: '*.log', output_mode: 'files_only' });
    assert.deepEqual(globbed.files, ['repo/drop.log', 'repo/keep.log']);
  });

  test('ignore files above the search root count only inside the roots (hermes mode: all of them)', async () => {
    for (const [access, expected] of [
      ['roots', ['kept.txt', 'skip.txt']],
      ['hermes', ['kept.txt']],
    ] as const) {
      // The one root is the searched directory, below the repository's top and its .gitignore.
      const roots: string[] = [];
      const c = cases.make({ access, roots });
      roots.push(c.p('repo/inner'));
      c.file('repo/.git/HEAD', 'ref: refs/heads/main\n');
      c.file('repo/.gitignore', 'skip.txt\n');
      c.file('repo/inner/kept.txt', 'needle\n');
      c.file('repo/inner/skip.txt', 'needle\n');
      const r = await call(c.search, { pattern: 'needle', path: c.p('repo/inner'), output_mode: 'files_only' });
      assert.deepEqual(r.files, expected.map((f) => join(c.p('repo/inner'), f)), access);
    }
  });

  test('an ignore file that is a FIFO is passed over, never waited on', async () => {
    const c = cases.make();
    c.file('repo/.git/HEAD', 'ref: refs/heads/main\n');
    c.file('repo/a.txt', 'needle\n');
    const made = spawnSync('mkfifo', [c.p('repo/.gitignore')]);
    assert.equal(made.status, 0, String(made.stderr));
    const r = await call(c.search, { pattern: 'needle', path: 'repo', output_mode: 'files_only' });
    assert.deepEqual(r.files, ['repo/a.txt']);
  });

  test("rg's regex dialect: POSIX classes and scripts work, look-around and backreferences are refused", async () => {
    const c = cases.make();
    c.file('r.txt', '123\nαβγ\nfoobar\n');
    assert.deepEqual(matchesOf(await call(c.search, { pattern: '^[[:digit:]]+$' })).map((m) => m.line), [1]);
    assert.deepEqual(matchesOf(await call(c.search, { pattern: '\\p{Greek}+' })).map((m) => m.line), [2]);
    // rg's \w and \d are Unicode-aware; a leading `]` in a class is literal.
    assert.deepEqual(matchesOf(await call(c.search, { pattern: '^\\w+$' })).map((m) => m.line), [1, 2, 3]);
    assert.deepEqual(matchesOf(await call(c.search, { pattern: '[]β]' })).map((m) => m.line), [2]);
    // Inline flags scoped to a group or set mid-pattern, and Python-style named groups, as rg reads them.
    assert.deepEqual(matchesOf(await call(c.search, { pattern: '(?i:FOO)bar' })).map((m) => m.line), [3]);
    assert.deepEqual(matchesOf(await call(c.search, { pattern: 'foo(?i)BAR' })).map((m) => m.line), [3]);
    assert.equal((await call(c.search, { pattern: '(?i:FOO)BAR' })).total_count, 0);
    assert.equal((await call(c.search, { pattern: '(?i)FOO(?-i)BAR' })).total_count, 0);
    assert.deepEqual(matchesOf(await call(c.search, { pattern: '(?i)FOO(?-i)bar' })).map((m) => m.line), [3]);
    assert.deepEqual(matchesOf(await call(c.search, { pattern: '(?P<n>\\d)2' })).map((m) => m.line), [1]);
    const e = await expectCode(c.search.handler({ pattern: 'foo(?=bar)' }, ctx), ErrorCode.INVALID_ARGUMENTS);
    assert.match(e.message, /look-around, including look-ahead and look-behind, is not supported/);
    await expectCode(c.search.handler({ pattern: '(a)\\1' }, ctx), ErrorCode.INVALID_ARGUMENTS);
  });

  test('a CRLF line keeps its \\r while matched (rg: `$` does not match before it) and is shown without it', async () => {
    const c = cases.make();
    c.file('w.txt', 'one\r\ntwo\r\n');
    assert.deepEqual(matchesOf(await call(c.search, { pattern: 'two' })), [{ path: './w.txt', line: 2, content: 'two' }]);
    assert.equal((await call(c.search, { pattern: 'two$' })).total_count, 0);
  });

  test('hidden entries and binary files are skipped; dependency directories are searched like any other', async () => {
    const c = cases.make();
    c.file('visible.txt', 'needle\n');
    c.file('.hidden/secret.txt', 'needle\n');
    c.file('.dotfile', 'needle\n');
    c.file('node_modules/pkg/index.js', 'needle\n');
    c.file('venv/lib/site.py', 'needle\n');
    c.file('lib/site-packages/mod.py', 'needle\n');
    c.file('__pycache__/mod.txt', 'needle\n');
    c.file('bin.dat2', Buffer.concat([Buffer.from('needle\n'), Buffer.from([0, 1, 2])]));
    const r = await call(c.search, { pattern: 'needle', output_mode: 'files_only' });
    // As Hermes' rg: no ignore file names them, so they are searched (and nothing says otherwise).
    assert.deepEqual(r.files, ['./visible.txt', './__pycache__/mod.txt', './lib/site-packages/mod.py', './node_modules/pkg/index.js', './venv/lib/site.py']);
    assert.equal(r.warning, undefined);
    const names = await call(c.search, { pattern: '*.py', target: 'files' });
    assert.deepEqual([...(names.files as string[])].sort(), ['./lib/site-packages/mod.py', './venv/lib/site.py']);
  });

  test('dependency directories an ignore file names are skipped: .gitignore inside a git repository, .ignore anywhere', async () => {
    const c = cases.make();
    c.file('src/a.js', 'needle\n');
    c.file('node_modules/pkg/index.js', 'needle\n');
    c.file('venv/lib/site.py', 'needle\n');
    c.file('.gitignore', 'node_modules/\nvenv/\n');
    // Outside a git repository rg does not read .gitignore: both are searched.
    assert.equal((await call(c.search, { pattern: 'needle', output_mode: 'files_only' })).total_count, 3);
    fs.mkdirSync(c.p('.git'));
    assert.deepEqual((await call(c.search, { pattern: 'needle', output_mode: 'files_only' })).files, ['./src/a.js']);
    fs.rmSync(c.p('.git'), { recursive: true });
    c.file('.ignore', 'venv/\n');
    assert.deepEqual((await call(c.search, { pattern: 'needle', output_mode: 'files_only' })).files, ['./node_modules/pkg/index.js', './src/a.js']);
  });

  test('a file larger than SEARCH_MAX_FILE_BYTES is streamed: every match found, context across chunk edges, a NUL still makes it binary', async () => {
    const c = cases.make();
    const filler = 'filler line\r\n'.repeat(Math.ceil((SEARCH_MAX_FILE_BYTES * 1.5) / 13));
    const fillerLines = filler.split('\n').length - 1;
    c.file('huge.log', 'needle first\n' + filler + 'before\nneedle last\nafter');
    const r = await call(c.search, { pattern: 'needle', context: 1, path: 'huge.log' });
    assert.deepEqual(matchesOf(r), [
      { path: 'huge.log', line: 1, content: 'needle first' },
      { path: 'huge.log', line: 2, content: 'filler line' },
      { path: 'huge.log', line: fillerLines + 2, content: 'before' },
      { path: 'huge.log', line: fillerLines + 3, content: 'needle last' },
      { path: 'huge.log', line: fillerLines + 4, content: 'after' },
    ]);
    const count = await call(c.search, { pattern: 'line$', output_mode: 'count', path: 'huge.log' });
    assert.equal(count.total_count, 0); // each filler line ends in \r, where rg's `$` does not match
    c.file('huge.bin', filler + '\u0000needle\n');
    assert.equal((await call(c.search, { pattern: 'needle', path: 'huge.bin' })).total_count, 0);
  });

  test("a byte-order mark is sniffed as rg does: UTF-8's dropped, UTF-16 text transcoded and searched", async () => {
    const c = cases.make();
    c.file('bom8.txt', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('needle first\n')]));
    c.file('bom16.txt', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('x\nthe needle\n', 'utf16le')]));
    assert.deepEqual(matchesOf(await call(c.search, { pattern: '^needle', path: 'bom8.txt' })), [{ path: 'bom8.txt', line: 1, content: 'needle first' }]);
    assert.deepEqual(matchesOf(await call(c.search, { pattern: 'needle$', path: 'bom16.txt' })), [{ path: 'bom16.txt', line: 2, content: 'the needle' }]);
  });

  test('matches in credential files are dropped and counted in _omitted', async () => {
    const c = cases.make();
    c.file('~/auth.json', '{"token": "abc"}\n');
    c.file('~/notes.md', 'token rotation notes\n');
    const r = await call(c.search, { pattern: 'token', path: c.home });
    assert.deepEqual(matchesOf(r).map((m) => m.path), [join(c.home, 'notes.md')]);
    assert.match(text(r._omitted), /^1 result\(s\) omitted because they target credential/);
    // As in Hermes, total_count counts what was found, the omitted results too.
    assert.equal(r.total_count, 2);
  });

  test('a credential file as the search path is refused', async () => {
    const c = cases.make();
    c.file('~/auth.json', '{}\n');
    await expectCode(c.search.handler({ pattern: 'x', path: c.p('~/auth.json') }, ctx), ErrorCode.FILE_BLOCKED);
  });

  test('a missing path is FILE_NOT_FOUND with similar paths', async () => {
    const c = project();
    const e = await expectCode(c.search.handler({ pattern: 'x', path: 'sr' }, ctx), ErrorCode.FILE_NOT_FOUND);
    assert.equal(e.message, `Path not found: sr. Similar paths: src (looked for ${c.p('sr')}; project roots: ${c.root})`);
  });

  test('an aborted signal cancels the walk', async () => {
    const c = project();
    const ac = new AbortController();
    ac.abort();
    const aborted: CallContext = { ...ctx, signal: ac.signal };
    await expectCode(c.search.handler({ pattern: 'answer' }, aborted), ErrorCode.CANCELLED);
  });

  test('secrets in matched lines are redacted', async () => {
    const c = cases.make();
    const key = 'ghp_' + 'a1B2c3D4e5F6g7H8i9J0k1L2';
    c.file('ci.yml', `token: ${key}\n`);
    const r = await call(c.search, { pattern: 'token' });
    assert.equal(matchesOf(r).length, 1);
    assert.ok(!matchesOf(r)[0]!.content.includes(key));
  });
});

describe('search_files: files', () => {
  test('following Hermes 0.22 file search is in walk order by default, newest first with order: modified, directories beside files', async () => {
    const c = cases.make();
    const older = c.file('a/old.py', '');
    const newer = c.file('b/new.py', '');
    fs.mkdirSync(c.p('pydir'));
    fs.utimesSync(older, new Date(2020, 0, 1), new Date(2020, 0, 1));
    fs.utimesSync(newer, new Date(2024, 0, 1), new Date(2024, 0, 1));
    fs.utimesSync(c.p('pydir'), new Date(2022, 0, 1), new Date(2022, 0, 1));
    assert.deepEqual((await call(c.search, { pattern: '*.py', target: 'files' })).files, ['./a/old.py', './b/new.py']);
    assert.deepEqual((await call(c.search, { pattern: '*.py', target: 'files', order: 'modified' })).files, ['./b/new.py', './a/old.py']);
    const withDir = await call(c.search, { pattern: '*py*', target: 'files' });
    assert.deepEqual(withDir.files, ['./b/new.py', './pydir', './a/old.py']);
    await expectCode(c.search.handler({ pattern: '*.py', target: 'files', order: 'newest' }, ctx), ErrorCode.INVALID_ARGUMENTS);
  });

  test('following Hermes 0.19 finds files by glob, newest first', async () => {
    const c = cases.make({ hermes: '0.19.0' });
    const older = c.file('a/old.py', '');
    const newer = c.file('b/new.py', '');
    c.file('c/skip.txt', '');
    fs.utimesSync(older, new Date(2020, 0, 1), new Date(2020, 0, 1));
    fs.utimesSync(newer, new Date(2024, 0, 1), new Date(2024, 0, 1));
    const r = await call(c.search, { pattern: '*.py', target: 'files' });
    assert.deepEqual(r.files, ['./b/new.py', './a/old.py']);
    assert.equal(r.total_count, 2);
  });

  test('a bare name matches at any depth (Hermes wraps it as *name)', async () => {
    const c = cases.make();
    c.file('deep/er/config.yaml', '');
    c.file('myconfig.yaml', '');
    c.file('config.yaml.bak', '');
    const r = await call(c.search, { pattern: 'config.yaml', target: 'files' });
    assert.deepEqual([...(r.files as unknown[])].sort(), ['./deep/er/config.yaml', './myconfig.yaml']);
  });

  test('a pattern with / matches the relative path', async () => {
    const c = cases.make();
    c.file('src/a/x.ts', '');
    c.file('test/x.ts', '');
    const r = await call(c.search, { pattern: 'src/**/*.ts', target: 'files' });
    assert.deepEqual(r.files, ['./src/a/x.ts']);
  });

  test('following Hermes 0.22 files mode paginates and counts up to one past the page', async () => {
    const c = cases.make();
    for (let i = 0; i < 5; i++) fs.utimesSync(c.file(`f${i}.md`, ''), new Date(2020, 0, 1 + i), new Date(2020, 0, 1 + i));
    const r = await call(c.search, { pattern: '*.md', target: 'files', offset: 1, limit: 2, order: 'modified' });
    assert.deepEqual(r.files, ['./f3.md', './f2.md']);
    assert.deepEqual([r.total_count, r.truncated, r.total_count_is_lower_bound], [4, true, true]);
  });

  test('following Hermes 0.19 files mode paginates', async () => {
    const c = cases.make({ hermes: '0.19.0' });
    for (let i = 0; i < 5; i++) fs.utimesSync(c.file(`f${i}.md`, ''), new Date(2020, 0, 1 + i), new Date(2020, 0, 1 + i));
    const r = await call(c.search, { pattern: '*.md', target: 'files', offset: 1, limit: 2 });
    assert.deepEqual(r.files, ['./f3.md', './f2.md']);
    assert.equal(r.total_count, 5);
    assert.equal(r.truncated, true);
  });

  test('legacy target aliases grep/find are accepted by the handler', async () => {
    const c = project();
    const found = await call(c.search, { pattern: '*.md', target: 'find' });
    assert.deepEqual(found.files, ['./README.md']);
    const grep = await call(c.search, { pattern: '42', target: 'grep' });
    assert.equal(matchesOf(grep).length, 1);
  });

  test('the walk budget is the named limit searchFilesMaxEntries (20,000 by default, HERMES_MCP_SEARCH_FILES_MAX_ENTRIES) and searchFilesTimeoutSeconds (20 s)', () => {
    assert.equal(defaultLimits().searchFilesMaxEntries, 20_000);
    assert.equal(defaultLimits().searchFilesTimeoutSeconds, 20);
    assert.equal(loadLimits({ HERMES_MCP_SEARCH_FILES_MAX_ENTRIES: '300' }).searchFilesMaxEntries, 300);
  });

  // The budget tests give the walk a budget of 300 entries (the limit as configured), not 20,000 files.
  const SEARCH_MAX_ENTRIES = 300;

  test(`a node_modules of more than the walk's budget (${SEARCH_MAX_ENTRIES} entries) does not make a content search unbounded; ignored, it costs nothing`, async () => {
    const c = cases.make({ searchFilesMaxEntries: SEARCH_MAX_ENTRIES });
    const bulk = c.p('node_modules/big');
    fs.mkdirSync(bulk, { recursive: true });
    for (let i = 0; i <= SEARCH_MAX_ENTRIES; i++) fs.writeFileSync(join(bulk, `m${i}.js`), 'module.exports = 1;\n');
    c.file('src/app.js', 'needle\n');
    const started = performance.now();
    const r = await call(c.search, { pattern: 'needle' });
    // The walk is depth-first in name order: node_modules spends the budget before src is reached,
    // and the answer says the search stopped rather than that nothing matched.
    assert.equal(r.limit_reason, 'entry_limit');
    assert.equal(r.truncated, true);
    assert.equal(r.total_count_is_lower_bound, true);
    assert.match(text(r.warning), new RegExp(`Search stopped after ${SEARCH_MAX_ENTRIES.toLocaleString('en-US')} directory entries; results are incomplete`));
    assert.ok(performance.now() - started < defaultLimits().searchFilesTimeoutSeconds * 1000, 'the entry bound stops it before the deadline');
    // Named by a .gitignore inside a git repository, node_modules is not walked at all.
    fs.mkdirSync(c.p('.git'));
    c.file('.gitignore', 'node_modules/\n');
    const ignored = await call(c.search, { pattern: 'needle' });
    assert.deepEqual(matchesOf(ignored), [{ path: './src/app.js', line: 1, content: 'needle' }]);
    assert.equal(ignored.limit_reason, undefined);
    assert.equal(ignored.truncated, undefined);
  });

  test(`the walk stops after its budget of entries (${SEARCH_MAX_ENTRIES})`, async () => {
    const c = cases.make({ searchFilesMaxEntries: SEARCH_MAX_ENTRIES });
    const dir = c.p('bulk');
    fs.mkdirSync(dir);
    for (let i = 0; i <= SEARCH_MAX_ENTRIES; i++) fs.writeFileSync(join(dir, `f${i}`), '');
    const r = await call(c.search, { pattern: '*.none', target: 'files' });
    assert.equal(r.limit_reason, 'entry_limit');
    assert.equal(r.truncated, true);
    assert.match(text(r.warning), /results are incomplete/);
  });
});
