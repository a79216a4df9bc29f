import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { readConfigYaml, readHermesConfig } from '../../supervisor/platform/hermes-config.js';
import { tempDirs } from '../helpers/temp.js';

const temp = tempDirs();
after(() => temp.removeAll());
const MAX = 4096;

function home(config?: string): string {
  const dir = temp.make('hmcp-hermes-config-');
  if (config !== undefined) writeFileSync(join(dir, 'config.yaml'), config);
  return dir;
}

test('a mapping is parsed with PyYAML\'s resolvers (y stays a string)', () => {
  assert.deepEqual(readHermesConfig(home('timezone: Europe/Berlin\nhoncho:\n  base_url: http://127.0.0.1:8000\nflag: y\nport: 09\n'), MAX), {
    doc: { timezone: 'Europe/Berlin', honcho: { base_url: 'http://127.0.0.1:8000' }, flag: 'y', port: '09' },
  });
});

test('no config.yaml, an empty one or a document that is not a mapping is no config and no error', () => {
  assert.deepEqual(readHermesConfig(home(), MAX), {});
  assert.deepEqual(readHermesConfig(home(''), MAX), {});
  assert.deepEqual(readHermesConfig(home('- a\n- b\n'), MAX), {});
  assert.deepEqual(readHermesConfig(home('just text\n'), MAX), {});
});

test('unparsable YAML is an error naming the file and the parser\'s first line', () => {
  const dir = home('a: [1, 2\nb: c\n');
  const { error, doc } = readHermesConfig(dir, MAX);
  assert.equal(doc, undefined);
  assert.match(error ?? '', new RegExp(`^${join(dir, 'config.yaml')}: cannot be parsed as YAML \\([^\\n]+\\)$`));
});

test('a file over the byte bound is refused unread', () => {
  const dir = home(`a: ${'x'.repeat(100)}\n`);
  assert.deepEqual(readHermesConfig(dir, 50), { error: `${join(dir, 'config.yaml')}: is larger than 50 bytes (hermesConfigMaxBytes)` });
  assert.deepEqual(readHermesConfig(dir, 104), { doc: { a: 'x'.repeat(100) } }, 'exactly the bound is read');
});

test('config.yaml as a symbolic link is refused; readConfigYaml with follow opens it as Hermes does', () => {
  const target = home('a: 1\n');
  const dir = home();
  symlinkSync(join(target, 'config.yaml'), join(dir, 'config.yaml'));
  assert.deepEqual(readHermesConfig(dir, MAX), { error: `${join(dir, 'config.yaml')}: cannot be opened (ELOOP)` });
  assert.deepEqual(readConfigYaml(join(dir, 'config.yaml'), true, MAX), { doc: { a: 1 } });
  assert.deepEqual(readConfigYaml(join(dir, 'config.yaml'), false, MAX), { error: 'cannot be opened (ELOOP)' });
});

test('readConfigYaml: missing is its own answer, a directory is an error', () => {
  const dir = home();
  assert.deepEqual(readConfigYaml(join(dir, 'none.yaml'), false, MAX), { missing: true });
  mkdirSync(join(dir, 'sub.yaml'));
  const read = readConfigYaml(join(dir, 'sub.yaml'), false, MAX);
  assert.ok('error' in read && /^cannot be (opened|parsed as YAML) \(.*EISDIR/.test(read.error), JSON.stringify(read));
});
