import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { cmdline } from '../helpers/procfs.js';
import { startStandin } from '../helpers/camofox.js';

// The stand-in as a process: it prints only its port, listens on loopback only, and on SIGTERM or
// SIGINT exits 0 taking every process it started with it: Chromium's whole tree and the
// crashpad handlers Debian's build double-forks out of it.

/** Listening TCP sockets on `port` as [local address hex] from /proc/net/tcp and tcp6. */
function listeners(port: number): string[] {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  return ['/proc/net/tcp', '/proc/net/tcp6'].flatMap((file) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .slice(1)
      .map((line) => line.trim().split(/\s+/))
      .filter((f) => f[1]?.endsWith(`:${hexPort}`) && f[3] === '0A')
      .map((f) => f[1]!.split(':')[0]!),
  );
}

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  test(`${signal}: exit 0, and no process of the browser's tree survives`, async () => {
    const standin = await startStandin();
    try {
      assert.equal(standin.stdout(), `${standin.port}\n`, 'stdout is the port line and nothing else');
      assert.deepEqual(listeners(standin.port), ['0100007F'], 'listens on 127.0.0.1 only');
      const tab = await standin.call('POST', '/tabs', { userId: 'u', sessionKey: 's' });
      assert.equal(tab.status, 200);
      const tree = standin.descendants();
      const chromium = tree.filter((p) => /chrom/.test(cmdline(p.pid)));
      assert.ok(chromium.length >= 3, `a browser with its helpers is running: ${tree.map((p) => cmdline(p.pid).slice(0, 60)).join(' | ')}`);
      assert.ok(
        tree.some((p) => cmdline(p.pid).includes('chrome_crashpad_handler')),
        'the double-forked crashpad handlers are adopted by the stand-in (a subreaper), so they are checked too',
      );
      const stopped = await standin.stop(signal);
      assert.deepEqual([stopped.code, stopped.signal], [0, null], standin.stderr());
      assert.deepEqual(stopped.survivors.map((pid) => `${pid} ${cmdline(pid).slice(0, 80)}`), [], 'no descendant outlives the stand-in');
    } finally {
      await standin.stop('SIGKILL').catch(() => {});
    }
  });
}
