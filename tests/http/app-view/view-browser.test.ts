import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { connect, openSession, startTestGateway, viaBridge, type TestGateway } from '../../helpers/gateway.js';
import { ViewBrowser, viewAsHosted, type ViewHost, withHost, screenshotsDir } from '../../helpers/view-host.js';
import { waitFor } from '../../helpers/wait.js';

// The result view in a real browser (issue #26): Debian's Chromium, a host page running ext-apps'
// AppBridge, the view's HTML as resources/read returned it in a sandboxed iframe under the CSP it
// declares, and real tool_call results from a running gateway. The view's own tool calls go
// through the bridge to the same gateway. One screenshot per card kind goes to this test's temp
// directory, or to VIEW_SCREENSHOTS_DIR when `npm run docs:view-screenshots` asks for them.

const shots = screenshotsDir('view-shots-');
const shotsDir = shots.dir;

describe('the result view in Chromium', () => {
  let gw: TestGateway;
  let browser: ViewBrowser;
  let model: Client;
  let token: string;
  let html: string;

  before(async () => {
    gw = await startTestGateway();
    browser = await ViewBrowser.launch();
    // The model's calls reach the gateway through the host, which renders views (so declares it).
    ({ client: model, token } = await openSession(gw.mcpUrl, 'modern', { views: true }));
    html = await viewAsHosted(model);
  });
  after(async () => {
    await model?.close();
    await browser?.close();
    await gw?.close();
    shots.remove();
  });

  /** A deferred call through tool_call by the "model", and the view shown its input and result. */
  async function shown(host: ViewHost, name: string, args: Record<string, unknown>) {
    const input = { calls: [{ name, arguments: args }], session_token: token };
    const { result } = await viaBridge(model, name, args, token);
    await host.deliver(input, result);
    return result;
  }

  async function prepared(command: string): Promise<{ job_id: string; recovery_token: string }> {
    const { data } = await viaBridge(model, 'job_prepare', { command, workdir: gw.home }, token);
    return { job_id: data.job_id as string, recovery_token: data.recovery_token as string };
  }

  test('a running job is followed live through the bridge until it succeeds, colours rendered, token never shown', async () => {
    await withHost(browser.open(await connect(gw.mcpUrl, 'modern', { views: true }), html), async (host) => {
      const job = await prepared("echo building; sleep 2; printf '\\033[32mall green\\033[0m\\n'");
      await shown(host, 'job_start', job);
      await host.view.locator('.state-running, .state-starting').waitFor({ timeout: 10_000 });
      await host.screenshot(shotsDir, 'job-running');
      await host.view.locator('.state-succeeded').waitFor({ timeout: 30_000 });
      assert.match((await host.view.locator('.job-details').textContent())!, /^exit code 0\b/);
      assert.match((await host.view.locator('.terminal').textContent())!, /building\nall green/);
      assert.equal(await host.view.locator('.terminal .ansi-fg-2').textContent(), 'all green', 'in its colour, from the real result');
      const text = await host.view.locator('body').textContent();
      assert.ok(!text!.includes(job.recovery_token), 'the recovery token is never shown');
      // Followed by job_status through tool_call, with a bounded wait, never in a tight loop.
      assert.ok(host.calls.length >= 1 && host.calls.length <= 4, `${host.calls.length} calls`);
      for (const c of host.calls) {
        assert.equal(c.name, 'tool_call');
        const call = (c.arguments.calls as Array<{ name: string; arguments: Record<string, unknown> }>)[0]!;
        assert.equal(call.name, 'job_status');
        assert.equal(call.arguments.wait_seconds, 20);
      }
      assert.equal(await host.view.locator('button.cancel').count(), 0, 'a finished job offers no Cancel');
      await host.screenshot(shotsDir, 'job-succeeded');
    });
  });

  test('Cancel asks for confirmation first, then cancels the job through job_cancel', async () => {
    await withHost(browser.open(await connect(gw.mcpUrl, 'modern', { views: true }), html), async (host) => {
      const job = await prepared('echo waiting; sleep 60');
      await shown(host, 'job_start', job);
      await host.view.locator('button.cancel').click();
      await host.view.locator('.confirm').waitFor();
      await host.screenshot(shotsDir, 'job-cancel-confirm');
      assert.equal(host.calls.filter((c) => JSON.stringify(c.arguments).includes('job_cancel')).length, 0, 'nothing cancelled before confirming');
      await host.view.locator('button.confirm-yes').click();
      await host.view.locator('.state-cancelled').waitFor({ timeout: 30_000 });
      assert.equal(host.calls.filter((c) => JSON.stringify(c.arguments).includes('"job_cancel"')).length, 1);
      const { data } = await viaBridge(model, 'job_status', job);
      assert.equal(data.state, 'cancelled', 'the gateway cancelled it');
    });
  });

  test('terminal output, a coloured diff, collapsible matches, and an error with its recovery hint', async () => {
    await withHost(browser.open(await connect(gw.mcpUrl, 'modern', { views: true }), html, { width: 360 }), async (host) => {
      await shown(host, 'terminal', { command: 'echo compiled 3 files; exit 3' });
      await host.view.locator('.card-output').waitFor();
      assert.equal(await host.view.locator('.facts dd').first().textContent(), '3');
      assert.match((await host.view.locator('.terminal').textContent())!, /compiled 3 files/);
      await host.screenshot(shotsDir, 'terminal');

      await viaBridge(model, 'write_file', { path: join(gw.home, 'greeting.txt'), content: 'hello\nworld\n' }, token);
      await shown(host, 'patch', { path: join(gw.home, 'greeting.txt'), old_string: 'world', new_string: 'there' });
      await host.view.locator('.card-diff').waitFor();
      assert.equal(await host.view.locator('.diff-add').textContent(), '+there');
      assert.equal(await host.view.locator('.diff-del').textContent(), '-world');
      assert.match((await host.view.locator('.files').textContent())!, /greeting\.txt/);
      await host.screenshot(shotsDir, 'diff');

      await shown(host, 'search_files', { pattern: 'hello', path: gw.home });
      await host.view.locator('.card-matches details').first().waitFor();
      assert.equal(await host.view.locator('.line-no').first().textContent(), '1');
      await host.screenshot(shotsDir, 'matches');

      await shown(host, 'read_file', { path: '/etc/hostname' });
      await host.view.locator('.card-error').waitFor();
      assert.equal(await host.view.locator('.error-code').textContent(), 'PATH_OUTSIDE_ROOTS');
      assert.match((await host.view.locator('.error-hint').textContent())!, /inside the allowed roots/);
      await host.screenshot(shotsDir, 'error');

      // Anything else renders nothing: no card, zero height.
      await shown(host, 'process_manage', { action: 'list' });
      await waitFor(async () => (await host.view.locator('#root > *').count()) === 0 || undefined, 5_000, 'the card is gone');
      await waitFor(async () => (await host.page.locator('#frame iframe').boundingBox())!.height === 0 || undefined, 5_000, 'zero height');
    });
  });

  test('hostile output renders as text and runs nothing', async () => {
    await withHost(browser.open(await connect(gw.mcpUrl, 'modern', { views: true }), html), async (host) => {
      const hostile = `<img src=x onerror="console.log('PWNED-img')"><script>console.log('PWNED-script')</script>`;
      const job = await prepared(`printf '%s\\n' '${hostile}'; printf '\\033]0;<b>title</b>\\007\\033[38;5;999;1mbold\\033[999;31;0m\\n'`);
      await shown(host, 'job_start', job);
      await host.view.locator('.state-succeeded').waitFor({ timeout: 30_000 });
      const terminal = host.view.locator('.terminal');
      assert.match((await terminal.textContent())!, /<img src=x onerror=/);
      assert.equal(await host.view.locator('img, script:not(:first-of-type), b').count(), 0, 'no element came from the output');
      await new Promise((r) => setTimeout(r, 300));
      assert.deepEqual(host.console.filter((l) => l.includes('PWNED')), []);
      await host.screenshot(shotsDir, 'hostile');
    });
  });

  // A real job's coloured output, through the real result: the model's text is plain, the view
  // shows the colours the result's _meta carries; sequences other than colours never reach it.
  test('ANSI colours in an output tail render as colours; crafted sequences render as nothing', async () => {
    await withHost(browser.open(await connect(gw.mcpUrl, 'modern', { views: true }), html), async (host) => {
      const printed = [
        '\\033[1mBuilding\\033[0m 3 packages\\n',
        '\\033[32m✓ core\\033[0m \\033[33m⚠ docs (2 warnings)\\033[0m \\033[31;1m✗ view\\033[0m\\n',
        '\\033]8;;https://evil.example\\007link\\033]8;;\\007 \\033[38;5;208morange\\033[0m \\033[2J\\033[999;999H\\033[38;2;999;0;0mclamped\\033[0m\\n',
      ].join('');
      const job = await prepared(`printf '${printed}'`);
      await viaBridge(model, 'job_start', job, token);
      let result: Awaited<ReturnType<typeof viaBridge>>['result'] | undefined;
      for (let i = 0; i < 20 && result === undefined; i++) {
        const r = await viaBridge(model, 'job_status', { ...job, wait_seconds: 2 });
        if (r.data.state === 'succeeded') result = r.result;
      }
      assert.ok(result, 'the job succeeded');
      assert.equal(result.structuredContent?.output_tail, 'Building 3 packages\n✓ core ⚠ docs (2 warnings) ✗ view\nlink orange clamped\n', 'the model reads plain text');
      assert.ok(!JSON.stringify(result).includes('evil.example'), 'the hyperlink target is in no part of the result');
      await host.deliver({ calls: [{ name: 'job_status', arguments: job }] }, result);
      await host.view.locator('.terminal .ansi-fg-2').waitFor();
      assert.equal(await host.view.locator('.terminal .ansi-fg-2').textContent(), '✓ core');
      assert.equal(await host.view.locator('.terminal .ansi-fg-1.ansi-bold').textContent(), '✗ view');
      assert.equal(await host.view.locator('.terminal a').count(), 0, 'an OSC hyperlink is not a link');
      assert.match((await host.view.locator('.terminal').textContent())!, /^Building 3 packages\n✓ core ⚠ docs \(2 warnings\) ✗ view\nlink orange clamped\n$/);
      await host.screenshot(shotsDir, 'terminal-colours');
    });
  });

  test('dark theme from the host context', async () => {
    await withHost(browser.open(await connect(gw.mcpUrl, 'modern', { views: true }), html, { theme: 'dark' }), async (host) => {
      await shown(host, 'terminal', { command: 'echo dark mode' });
      await host.view.locator('.card-output').waitFor();
      assert.equal(await host.view.locator('html').getAttribute('data-theme'), 'dark');
      const bg = await host.view.locator('.card').evaluate((e) => getComputedStyle(e).backgroundColor);
      assert.equal(bg, 'rgb(17, 24, 39)', 'the host variable colours the card');
      await host.screenshot(shotsDir, 'dark');
      await host.setTheme('light');
      await waitFor(async () => (await host.view.locator('html').getAttribute('data-theme')) === 'light' || undefined, 5_000, 'the theme follows the host');
    });
  });
});
