import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ensureNginx, NGINX_INSTALL, nginxPath, type NginxHost } from '../../scripts/nginx-prerequisite.js';

// The test command's reverse-proxy prerequisite (scripts/nginx-prerequisite.ts), like Chromium's:
// present, it only looks; missing, as root on Debian it installs Debian's package (saying so);
// otherwise it fails with the exact command. The host is scripted so no package is installed here.

function host(opts: { installed: boolean; canApt: boolean; failOn?: string }) {
  const ran: string[] = [];
  const said: string[] = [];
  let installed = opts.installed;
  const h: NginxHost = {
    nginx: () => (installed ? '/usr/sbin/nginx' : undefined),
    canApt: () => opts.canApt,
    run: (command, args) => {
      ran.push([command, ...args].join(' '));
      if (opts.failOn && args[0] === opts.failOn) return 100;
      if (args[0] === 'install') installed = true;
      return 0;
    },
    say: (line) => said.push(line),
  };
  return { h, ran, said };
}

test('nginx present: its path, and no apt-get at all', () => {
  const { h, ran, said } = host({ installed: true, canApt: true });
  assert.equal(ensureNginx(h), '/usr/sbin/nginx');
  assert.deepEqual([ran, said], [[], []]);
});

test('missing, as root on Debian: apt-get update, then install nginx without recommends, announced', () => {
  const { h, ran, said } = host({ installed: false, canApt: true });
  assert.equal(ensureNginx(h), '/usr/sbin/nginx');
  assert.deepEqual(ran, ['apt-get update', 'apt-get install -y --no-install-recommends nginx']);
  assert.match(said[0]!, /nginx is missing; installing Debian's package/);
});

test('missing and not allowed to install: fails with the exact instruction, runs nothing', () => {
  const { h, ran } = host({ installed: false, canApt: false });
  assert.throws(() => ensureNginx(h), (err: Error) => err.message.includes(`As root, run: ${NGINX_INSTALL}`));
  assert.deepEqual(ran, []);
});

test('a failing apt-get stops there and says what to run', () => {
  const { h, ran } = host({ installed: false, canApt: true, failOn: 'install' });
  assert.throws(() => ensureNginx(h), /apt-get install -y --no-install-recommends nginx failed \(exit 100\)/);
  assert.deepEqual(ran, ['apt-get update', 'apt-get install -y --no-install-recommends nginx']);
});

test('the real lookup finds the nginx the test command made sure of', () => {
  assert.match(nginxPath() ?? '', /\/nginx$/);
});
