import assert from 'node:assert/strict';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { HermesDirs } from '../../../../supervisor/tools/files/access/index.js';
import {
  binaryDocumentRefusal,
  protectedInstructionConfig,
  protectedInstructionReason,
  protectedInstructionRefusal,
  sshConfigRefusal,
} from '../../../../supervisor/tools/files/write/blocks.js';

// The write refusals that need no file system: binary documents, protected agent-instruction files
// and the SSH client config. (assertWritable's path rules are judged with the access rules.)

const never = () => false;
const always = () => true;

describe('binaryDocumentRefusal', () => {
  test('an Office or OpenDocument file is refused whether or not it exists', () => {
    const msg = binaryDocumentRefusal('docs/Report.DOCX', false, never);
    assert.ok(msg?.startsWith("Refusing to write plain text to binary document 'docs/Report.DOCX' (.docx). A text write cannot produce"), msg ?? 'null');
    assert.notEqual(binaryDocumentRefusal('a.odt', false, never), null);
    assert.notEqual(binaryDocumentRefusal('a.epub', true, never), null);
  });

  test('a SQLite sidecar is refused; a sidecar-like name of another extension is not', () => {
    assert.match(binaryDocumentRefusal('data.db-wal', false, never)!, /^Refusing to write plain text to binary SQLite sidecar 'data\.db-wal' \(\.db-wal\)\./);
    assert.notEqual(binaryDocumentRefusal('x.sqlite3-journal', false, never), null);
    assert.equal(binaryDocumentRefusal('notes.txt-wal', true, never), null);
  });

  test('an existing PDF or binary-extension file is not overwritten; a new one may be created', () => {
    assert.match(binaryDocumentRefusal('paper.PDF', true, never)!, /^Refusing to overwrite existing PDF 'paper\.PDF' with plain text\./);
    assert.equal(binaryDocumentRefusal('paper.pdf', false, never), null);
    assert.match(binaryDocumentRefusal('logo.png', true, always)!, /^Refusing to overwrite existing binary file 'logo\.png' \(\.png\) with plain text/);
    assert.equal(binaryDocumentRefusal('logo.png', false, always), null);
    assert.equal(binaryDocumentRefusal('main.ts', true, never), null);
  });
});

describe('protected instruction files', () => {
  const dirs: HermesDirs = { dirs: ['/h/home'], root: '/h', home: '/h/home', activeProfile: 'default', authFiles: new Set() };
  const at = (lexical: string, real = lexical) => ({ lexical, real });

  test('config: on by default; the switch and the extra patterns read from security', () => {
    assert.deepEqual(protectedInstructionConfig(undefined), { enabled: true, extra: [] });
    assert.deepEqual(protectedInstructionConfig({ security: 'x' }), { enabled: true, extra: [] });
    assert.deepEqual(protectedInstructionConfig({ security: { protected_instruction_files: false, protected_instruction_extra_patterns: ['*.rules', '', null, 7] } }), {
      enabled: false,
      extra: ['*.rules', '7'],
    });
    assert.deepEqual(protectedInstructionConfig({ security: { protected_instruction_files: 'no' } }), { enabled: true, extra: [] });
  });

  test('the instruction basenames in any directory and case, by either spelling', () => {
    assert.equal(protectedInstructionReason(at('/work/p/AGENTS.md'), dirs, []), 'AGENTS.md');
    assert.equal(protectedInstructionReason(at('/work/p/link', '/work/p/claude.md'), dirs, []), 'claude.md');
    assert.equal(protectedInstructionReason(at('/work/p/.cursorrules'), dirs, []), '.cursorrules');
    assert.equal(protectedInstructionReason(at('/work/p/README.md'), dirs, []), null);
  });

  test("a file directly under a project's .hermes/ is named by its whole path", () => {
    assert.equal(protectedInstructionReason(at('/work/p/.hermes/plan.md'), dirs, []), '/work/p/.hermes/plan.md');
    assert.equal(protectedInstructionReason(at('/work/p/.hermes/deep/plan.md'), dirs, []), null);
  });

  test("extra patterns match as fnmatch on lower-cased names; Hermes' own home and root are exempt", () => {
    assert.equal(protectedInstructionReason(at('/work/p/Team.RULES'), dirs, ['*.rules']), 'Team.RULES');
    assert.equal(protectedInstructionReason(at('/work/p/a1.txt'), dirs, ['a[0-9].txt']), 'a1.txt');
    assert.equal(protectedInstructionReason(at('/work/p/ab.txt'), dirs, ['a[!b].txt']), null);
    assert.equal(protectedInstructionReason(at('/work/p/a.txt'), dirs, ['a?txt']), 'a.txt');
    assert.equal(protectedInstructionReason(at('/h/home/SOUL.md'), dirs, []), null);
    assert.equal(protectedInstructionReason(at('/h/AGENTS.md'), dirs, []), null);
  });

  test('the refusal names each target once', () => {
    assert.equal(
      protectedInstructionRefusal(['AGENTS.md', 'AGENTS.md', 'soul.md']),
      'BLOCKED: write to protected agent-instruction file(s) (AGENTS.md, soul.md) requires approval but no interactive user or gateway is present to approve it. ' +
        'The user has NOT consented to this write. Do NOT retry it or attempt the same edit via another path (terminal, execute_code, etc.).',
    );
  });
});

test("sshConfigRefusal: the user's SSH client config, by either spelling, named as given", () => {
  const config = join(homedir(), '.ssh', 'config');
  assert.equal(sshConfigRefusal([{ input: 'notes.txt', checked: { lexical: '/tmp/notes.txt', real: '/tmp/notes.txt' } }]), null);
  assert.equal(
    sshConfigRefusal([
      { input: '~/.ssh/config', checked: { lexical: config, real: config } },
      { input: 'link', checked: { lexical: '/tmp/link', real: config } },
      { input: 'link', checked: { lexical: '/tmp/link', real: config } },
    ]),
    'BLOCKED: write to SSH config file(s) (~/.ssh/config, link) requires approval but no interactive user or gateway is present to approve it. ' +
      "Do NOT retry it via another path (terminal, execute_code) without the user's explicit consent.",
  );
});
