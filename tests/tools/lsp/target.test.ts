import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { isGatewayError } from '../../../shared/errors.js';
import type { LspConfig } from '../../../supervisor/platform/config.js';
import type { LspServerSpec } from '../../../supervisor/platform/settings/lsp-servers.js';
import { resolveTarget } from '../../../supervisor/tools/lsp/target.js';
import { tempDirs } from '../../helpers/temp.js';

// The policy before any language server starts (target.ts), on real files in a temp directory:
// each refusal with its code, in order, and the workspace and launch of an accepted file.

const temp = tempDirs();
after(() => temp.removeAll());

const server: LspServerSpec = {
  name: 'fake-ls',
  command: ['fake-ls', '--stdio'],
  extensions: ['.fk', '.fkx'],
  languageId: { '.fkx': 'fakex' },
  install: 'npm i -g fake-ls',
  initializationOptions: { strict: true },
  rootMarkers: ['fake.json'],
};

/** roots/ (HERMES_MCP_ROOTS) with roots/proj/ trusted, a bin/ holding the server program, and files. */
function world() {
  const base = temp.make('hmcp-lsp-target-');
  const root = join(base, 'roots');
  const proj = join(root, 'proj');
  const bin = join(base, 'bin');
  mkdirSync(join(proj, 'pkg', 'src'), { recursive: true });
  mkdirSync(bin);
  writeFileSync(join(bin, 'fake-ls'), '#!/bin/sh\n');
  chmodSync(join(bin, 'fake-ls'), 0o755);
  writeFileSync(join(proj, 'pkg', 'fake.json'), '{}');
  writeFileSync(join(proj, 'pkg', 'src', 'main.fk'), 'x');
  writeFileSync(join(proj, 'pkg', 'src', 'view.fkx'), 'x');
  writeFileSync(join(proj, 'loose.fk'), 'x');
  writeFileSync(join(proj, 'notes.txt'), 'x');
  writeFileSync(join(root, 'untrusted.fk'), 'x');
  writeFileSync(join(proj, 'big.fk'), 'x'.repeat(101));
  const lsp: LspConfig = { trustedRoots: [proj], servers: [server], searchPath: `relative:${bin}` };
  const options = { roots: [root], lsp, childEnv: { HOME: '/home/x', PATH: '/ignored' }, maxFileBytes: 100 };
  return { base, root, proj, bin, options };
}

const refused = (code: string) => (e: unknown) => isGatewayError(e) && e.code === code;

test('an accepted file: its real path, the nearest marker directory, the languageId, the program found on the search path', async () => {
  const w = world();
  const t = await resolveTarget(join(w.proj, 'pkg', 'src', '..', 'src', 'main.fk'), w.options);
  assert.deepEqual(t, {
    file: join(w.proj, 'pkg', 'src', 'main.fk'),
    root: join(w.proj, 'pkg'),
    languageId: 'fake-ls',
    launch: { name: 'fake-ls', argv: [join(w.bin, 'fake-ls'), '--stdio'], env: { HOME: '/home/x', PATH: `relative:${w.bin}` }, initializationOptions: { strict: true } },
  });
  assert.equal((await resolveTarget(join(w.proj, 'pkg', 'src', 'view.fkx'), w.options)).languageId, 'fakex');
  // No marker above the file: the trusted root (deeper than the HERMES_MCP_ROOTS entry) is the workspace.
  assert.equal((await resolveTarget(join(w.proj, 'loose.fk'), w.options)).root, w.proj);
});

test('the workspace is never above the deeper of the trusted root and the allowed root', async () => {
  const w = world();
  const inner = join(w.proj, 'pkg', 'src');
  const t = await resolveTarget(join(inner, 'main.fk'), { ...w.options, roots: [inner] });
  assert.equal(t.root, inner, 'the marker in pkg/ is above the allowed root');
});

test('refusals in order: outside the roots, missing, not a regular file, too large, no server, untrusted, not installed', async () => {
  const w = world();
  await assert.rejects(resolveTarget('relative.fk', w.options), refused('PATH_OUTSIDE_ROOTS'));
  await assert.rejects(resolveTarget(join(w.base, 'bin', 'fake-ls'), w.options), refused('PATH_OUTSIDE_ROOTS'));
  symlinkSync(join(w.bin, 'fake-ls'), join(w.proj, 'escape.fk'));
  await assert.rejects(resolveTarget(join(w.proj, 'escape.fk'), w.options), refused('PATH_OUTSIDE_ROOTS'), 'a symlink leaving the roots');
  await assert.rejects(resolveTarget(join(w.proj, 'absent.fk'), w.options), refused('FILE_NOT_FOUND'));
  await assert.rejects(resolveTarget(join(w.proj, 'pkg'), w.options), refused('FILE_NOT_REGULAR'));
  await assert.rejects(resolveTarget(join(w.proj, 'big.fk'), w.options), (e) => refused('FILE_TOO_LARGE')(e) && /is 101 bytes; language servers get files up to 100 bytes/.test((e as Error).message));
  await assert.rejects(resolveTarget(join(w.proj, 'notes.txt'), w.options), (e) => refused('LSP_NO_SERVER_FOR_FILE')(e) && /configured extensions: \.fk \.fkx\);/.test((e as Error).message));
  await assert.rejects(resolveTarget(join(w.root, 'untrusted.fk'), w.options), (e) => refused('LSP_WORKSPACE_UNTRUSTED')(e) && (e as { details?: unknown }).details !== undefined);
  const none = { ...w.options, lsp: { ...w.options.lsp, searchPath: '/nonexistent' } };
  await assert.rejects(resolveTarget(join(w.proj, 'loose.fk'), none), (e) => {
    assert.ok(isGatewayError(e));
    assert.equal(e.code, 'LSP_SERVER_NOT_INSTALLED');
    assert.deepEqual(e.details, { server: 'fake-ls', program: 'fake-ls', install: 'npm i -g fake-ls' });
    return true;
  });
  // A server without initializationOptions launches without the field.
  const plain = { ...w.options, lsp: { ...w.options.lsp, servers: [{ ...server, initializationOptions: undefined }] } };
  assert.equal('initializationOptions' in (await resolveTarget(join(w.proj, 'loose.fk'), plain)).launch, false);
});
