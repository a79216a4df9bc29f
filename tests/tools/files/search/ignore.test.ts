import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { ancestorLayers, dirLayers, ignoreVerdict, parseIgnoreFile } from '../../../../supervisor/tools/files/search/ignore.js';
import { tempDirs } from '../../../helpers/temp.js';

const temp = tempDirs();
after(() => temp.removeAll());

test('parseIgnoreFile: comments and blanks skipped, negation, directory-only, anchoring, escapes', () => {
  const rules = parseIgnoreFile('# comment\n\n*.log\n!keep.log\nbuild/\n/top.txt\nsub/deep.txt\n\\#hash\n/\n');
  assert.deepEqual(
    rules.map((r) => [r.negate, r.dirOnly]),
    [
      [false, false],
      [true, false],
      [false, true],
      [false, false],
      [false, false],
      [false, false],
    ],
  );
  assert.equal(rules[0]!.match('a/b/x.log'), true); // unanchored: the base name at any depth
  assert.equal(rules[1]!.match('keep.log'), true);
  assert.equal(rules[2]!.match('x/build'), true);
  assert.equal(rules[3]!.match('top.txt'), true);
  assert.equal(rules[3]!.match('a/top.txt'), false); // anchored to the ignore file's directory
  assert.equal(rules[4]!.match('sub/deep.txt'), true);
  assert.equal(rules[4]!.match('x/sub/deep.txt'), false);
  assert.equal(rules[5]!.match('#hash'), true);
});

test('ignoreVerdict: the last matching line decides; .rgignore before .ignore before .gitignore; dir-only rules skip files', async () => {
  const dir = temp.make('ignore-');
  mkdirSync(join(dir, '.git'));
  writeFileSync(join(dir, '.gitignore'), '*.log\n!keep.log\nout/\n');
  writeFileSync(join(dir, '.ignore'), 'secret.log\n');
  writeFileSync(join(dir, '.rgignore'), '!secret.log\n');
  const layers = await dirLayers(dir, true, true);
  assert.deepEqual(
    layers.map((l) => l.kind),
    ['rgignore', 'ignore', 'gitignore'],
  );
  assert.equal(ignoreVerdict(layers, join(dir, 'x.log'), false), 'ignore');
  assert.equal(ignoreVerdict(layers, join(dir, 'keep.log'), false), 'whitelist');
  assert.equal(ignoreVerdict(layers, join(dir, 'secret.log'), false), 'whitelist');
  assert.equal(ignoreVerdict(layers, join(dir, 'out'), true), 'ignore');
  assert.equal(ignoreVerdict(layers, join(dir, 'out'), false), null);
  assert.equal(ignoreVerdict(layers, join(dir, 'x.txt'), false), null);
});

test('dirLayers: .gitignore only inside a repository, .git/info/exclude only at its top', async () => {
  const dir = temp.make('ignore-');
  writeFileSync(join(dir, '.gitignore'), 'a\n');
  mkdirSync(join(dir, '.git', 'info'), { recursive: true });
  writeFileSync(join(dir, '.git', 'info', 'exclude'), 'b\n');
  assert.deepEqual(await dirLayers(dir, false, false), []);
  assert.deepEqual(
    (await dirLayers(dir, true, true)).map((l) => [l.kind, l.dir]),
    [
      ['gitignore', dir],
      ['exclude', dir],
    ],
  );
});

test('ancestorLayers: ignore files above the root count, .gitignore only up to the repository top, confined to the roots', async () => {
  const top = temp.make('ignore-');
  const repo = join(top, 'repo');
  const root = join(repo, 'src');
  mkdirSync(join(repo, '.git'), { recursive: true });
  mkdirSync(root);
  writeFileSync(join(top, '.gitignore'), 'above-repo\n'); // outside the repository: not git's
  writeFileSync(join(top, '.ignore'), 'rg-above\n');
  writeFileSync(join(repo, '.gitignore'), 'in-repo\n');
  const all = await ancestorLayers(root, root, null);
  assert.equal(all.inRepo, true);
  const mine = all.layers.filter((l) => l.dir === top || l.dir === repo).map((l) => [l.dir, l.kind]);
  assert.deepEqual(mine, [
    [top, 'ignore'],
    [repo, 'gitignore'],
  ]);
  const confined = await ancestorLayers(root, root, [repo]);
  assert.deepEqual(
    confined.layers.map((l) => [l.dir, l.kind]),
    [[repo, 'gitignore']],
  );
});
