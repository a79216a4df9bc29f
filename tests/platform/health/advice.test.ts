import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { createRootsAdvice, hermesHomeAdvice, withoutOptionalAdvice } from '../../../supervisor/platform/health/advice.js';
import { tempDirs } from '../../helpers/temp.js';

const temp = tempDirs();
after(() => temp.removeAll());

test('the roots advice names the missing directories in one mkdir -p, "it" for one and "them" for several', () => {
  assert.equal(createRootsAdvice(['/srv/a']), 'create it (mkdir -p /srv/a) or set HERMES_MCP_ROOTS to your existing project directories');
  assert.match(createRootsAdvice(['/srv/a', '/srv/b']), /^create them \(mkdir -p \/srv\/a \/srv\/b\)/);
});

test('the Hermes home advice: create it when it does not exist, else point HERMES_HOME at the real one', () => {
  const home = temp.make('hmcp-advice-');
  assert.match(hermesHomeAdvice(home), new RegExp(`^point HERMES_HOME at your Hermes home \\(now ${home}\\)`));
  const missing = join(home, 'nowhere');
  assert.match(hermesHomeAdvice(missing), new RegExp(`^create the Hermes home ${missing}: .*mkdir -m 700 -p ${missing}`));
});

test('the advice to make a component optional is dropped with the separator before it; other actions stay whole', () => {
  assert.equal(withoutOptionalAdvice('start Honcho, or set HERMES_MCP_OPTIONAL_COMPONENTS=memory to run without memory tools'), 'start Honcho');
  assert.equal(withoutOptionalAdvice('install X; or set HERMES_MCP_OPTIONAL_COMPONENTS=lsp,graph to run without them'), 'install X');
  assert.equal(withoutOptionalAdvice('install X; or set HERMES_MCP_OPTIONAL_COMPONENTS=lsp to run without it; then restart'), 'install X; or set HERMES_MCP_OPTIONAL_COMPONENTS=lsp to run without it; then restart');
  assert.equal(withoutOptionalAdvice('create the directory'), 'create the directory');
});
