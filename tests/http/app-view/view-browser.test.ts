import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { connect, openSession, startTestGateway, viaBridge, type TestGateway } from '../../helpers/gateway.js';
import { type HostedView, ViewBrowser, viewAsHosted, type ViewHost, withHost, screenshotsDir } from '../../helpers/view-host.js';
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
  let html: HostedView;

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
      assert.equal(await host.view.locator('.outcome').textContent(), '✓ succeeded: exit 0');
      assert.equal(await host.view.locator('.card-failed').count(), 0, 'a success is not marked as a failure');
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
      const { data: failed } = await viaBridge(model, 'terminal', { command: 'echo compiled 3 files; exit 3' }, token);
      assert.equal(failed.exit_code, 3);
      await shown(host, 'terminal', { command: 'echo compiled 3 files; exit 3' });
      await host.view.locator('.card-output').waitFor();
      // Exit 3 is a failure: a badge that says so in words, and the card marked (border, stripe).
      assert.equal(await host.view.locator('.card-output').getAttribute('class'), 'card card-output card-failed');
      assert.equal(await host.view.locator('.outcome').textContent(), '✗ failed: exit 3');
      assert.equal(await host.view.locator('.outcome').getAttribute('class'), 'outcome outcome-failed');
      assert.equal(await host.view.locator('.outcome-mark').getAttribute('aria-hidden'), 'true', 'the mark is not read out; the words are');
      const failedBorder = await host.view.locator('.card').evaluate((e) => getComputedStyle(e).borderTopColor);
      assert.equal(failedBorder, 'rgb(185, 28, 28)', 'the failure colour');
      // The command, as the host gave it in the call's input.
      assert.equal(await host.view.locator('.command-text').textContent(), 'echo compiled 3 files; exit 3');
      assert.match((await host.view.locator('.terminal').textContent())!, /compiled 3 files/);
      await host.screenshot(shotsDir, 'terminal');

      await shown(host, 'terminal', { command: 'echo compiled 3 files' });
      await host.view.locator('.outcome-ok').waitFor();
      assert.equal(await host.view.locator('.outcome').textContent(), '✓ succeeded: exit 0');
      assert.equal(await host.view.locator('.card-output').getAttribute('class'), 'card card-output');
      assert.notEqual(await host.view.locator('.card').evaluate((e) => getComputedStyle(e).borderTopColor), failedBorder);
      assert.equal(await host.view.locator('.command-text').textContent(), 'echo compiled 3 files');

      // execute_code whose script fails: Hermes' status `error`.
      const { data: script } = await viaBridge(model, 'execute_code', { code: 'import sys\nprint("half done")\nsys.exit(3)' }, token);
      assert.equal(script.status, 'error', JSON.stringify(script));
      await shown(host, 'execute_code', { code: 'import sys\nprint("half done")\nsys.exit(3)' });
      await host.view.locator('.card-failed .outcome-failed').waitFor();
      assert.equal(await host.view.locator('.outcome').textContent(), '✗ failed: error');

      const path = join(gw.home, 'greeting.txt');
      await viaBridge(model, 'write_file', { path, content: 'hello\nworld\n' }, token);
      const diffed = await shown(host, 'patch', { path, old_string: 'world', new_string: 'there' });
      assert.match(String(diffed.structuredContent?.diff), /^--- a\/\//, 'Hermes writes a/ before the absolute path');
      await host.view.locator('.card-diff').waitFor();
      // The path once, as the file's heading; no a/ b/ headers and no list naming it again.
      assert.equal(await host.view.locator('.diff-path').textContent(), path);
      assert.equal((await host.view.locator('.card-diff').textContent())!.split(path).length - 1, 1, 'the path appears once');
      assert.equal(await host.view.locator('.files').count(), 0);
      assert.deepEqual(await host.view.locator('.diff-line').allTextContents(), ['@@ -1,2 +1,2 @@', ' hello', '-world', '+there']);
      assert.equal(await host.view.locator('.diff-add').textContent(), '+there');
      assert.equal(await host.view.locator('.diff-del').textContent(), '-world');
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

  test('a job that exits 3 is marked as failed; job_prepare\'s card shows the command it froze', async () => {
    await withHost(browser.open(await connect(gw.mcpUrl, 'modern', { views: true }), html), async (host) => {
      const command = "echo 'tests: 2 failed'; exit 3";
      const { result, data } = await viaBridge(model, 'job_prepare', { command, workdir: gw.home }, token);
      await host.deliver({ calls: [{ name: 'job_prepare', arguments: { command, workdir: gw.home } }], session_token: token }, result);
      await host.view.locator('.state-prepared').waitFor();
      assert.equal(await host.view.locator('.command-text').textContent(), command);
      assert.equal(await host.view.locator('.outcome').count(), 0, 'nothing ran yet');
      const job = { job_id: data.job_id as string, recovery_token: data.recovery_token as string };
      await shown(host, 'job_start', job);
      await host.view.locator('.state-failed').waitFor({ timeout: 30_000 });
      assert.equal(await host.view.locator('.outcome').textContent(), '✗ failed: exit 3');
      assert.equal(await host.view.locator('section.card').getAttribute('class'), 'card card-job card-failed');
      assert.equal(await host.view.locator('.command').count(), 0, 'job_start\'s input and the receipt carry no command');
      assert.match((await host.view.locator('.terminal').textContent())!, /tests: 2 failed/);
      await host.screenshot(shotsDir, 'job-failed');
    });
  });

  // The command comes from the call's input, which the host hands the view as the model wrote it:
  // the gateway's result redaction never saw it, so the view redacts it as the gateway would.
  test('a command is shown redacted, and a long one cut, with the whole on demand', async () => {
    await withHost(browser.open(await connect(gw.mcpUrl, 'modern', { views: true }), html), async (host) => {
      const secret = `ghp_${'A1b2C3d4E5'.repeat(3)}xyz123`;
      const command = `curl -s -H "Authorization: token ${secret}" http://127.0.0.1:9/ >/dev/null 2>&1; echo checked ${'the long tail of a command '.repeat(8)}`;
      await shown(host, 'terminal', { command });
      await host.view.locator('.command-text').waitFor();
      const short = (await host.view.locator('.command-text').textContent())!;
      assert.ok(short.length <= 160 && short.endsWith('…'), short);
      assert.ok(command.includes(short.slice(0, 20)), 'the start of the command');
      await host.view.locator('details.command-whole summary').click();
      const whole = (await host.view.locator('pre.command-full').textContent())!;
      assert.ok(whole.endsWith('the long tail of a command the long tail of a command'), 'the whole command on demand');
      assert.match(whole, /Authorization: token \S+/);
      const body = (await host.view.locator('body').textContent())!;
      assert.ok(!body.includes(secret) && !body.includes(secret.slice(8, 28)), `the token is masked: ${whole}`);
      await host.screenshot(shotsDir, 'command-long');
    });
  });

  test('a V4A patch of three files: each under one heading saying what became of it, no file listed twice', async () => {
    await withHost(browser.open(await connect(gw.mcpUrl, 'modern', { views: true }), html), async (host) => {
      const [kept, added, removed] = ['v4a-kept.txt', 'v4a-added.txt', 'v4a-removed.txt'].map((f) => join(gw.home, f)) as [string, string, string];
      await viaBridge(model, 'write_file', { path: kept, content: 'alpha\nbeta\n' }, token);
      await viaBridge(model, 'write_file', { path: removed, content: 'old\n' }, token);
      const patch = ['*** Begin Patch', `*** Update File: ${kept}`, '@@', ' alpha', '-beta', '+gamma', `*** Add File: ${added}`, '+new line', `*** Delete File: ${removed}`, '*** End Patch'].join('\n');
      const result = await shown(host, 'patch', { mode: 'patch', patch });
      assert.notEqual(result.isError, true, JSON.stringify(result.structuredContent));
      await host.view.locator('.card-diff .diff-path').first().waitFor();
      assert.deepEqual(await host.view.locator('.diff-path').allTextContents(), [kept, `${added} (new file)`, `${removed} (deleted)`]);
      const text = (await host.view.locator('.card-diff').textContent())!;
      for (const path of [kept, added, removed]) assert.equal(text.split(path).length - 1, 1, `${path} once in ${text}`);
      assert.ok(!/[ab]\/\//.test(text), 'no a// or b// prefix');
      assert.equal(await host.view.locator('.files').count(), 0);
      assert.deepEqual(await host.view.locator('.diff-file').nth(1).locator('.diff-line').allTextContents(), ['+new line']);

      // A removed `-- x` before an added `++ y` reads like file headers, but inside a hunk it is none.
      const dashes = join(gw.home, 'dashes.txt');
      await viaBridge(model, 'write_file', { path: dashes, content: 'top\n-- x\nend\n' }, token);
      const edited = await shown(host, 'patch', { path: dashes, old_string: '-- x', new_string: '++ y' });
      assert.match(String(edited.structuredContent?.diff), /\n--- x\n\+\+\+ y\n/);
      await host.view.locator('.diff-line.diff-del').waitFor();
      assert.deepEqual(await host.view.locator('.diff-path').allTextContents(), [dashes]);
      assert.deepEqual(await host.view.locator('.diff-line').allTextContents(), ['@@ -1,3 +1,3 @@', ' top', '--- x', '+++ y', ' end']);
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

  // zod (which ext-apps and the MCP SDK bring in) probes whether it may compile code with
  // `new Function("")` when a schema is built; under the view's CSP (no 'unsafe-eval') the probe is
  // refused and reported on every load, as noise in the host's console and CSP reports.
  test('the view loads, connects and renders under the strict CSP it declares without one violation', async () => {
    await withHost(browser.open(await connect(gw.mcpUrl, 'modern', { views: true }), html), async (host) => {
      await shown(host, 'terminal', { command: 'echo strict' });
      await host.view.locator('.card-output').waitFor();
      await new Promise((r) => setTimeout(r, 300));
      assert.deepEqual(host.cspViolations, [], 'no securitypolicyviolation event and no CSP console error');
      // The same listener sees a violation in the view's frame when there is one: an image from
      // outside data: URLs is refused by the view's img-src.
      await host.view.locator('#root').evaluate((root) => {
        const img = document.createElement('img');
        img.src = 'http://127.0.0.1:9/probe.png';
        root.append(img);
      });
      await waitFor(async () => host.cspViolations.some((v) => v.includes('img-src') && v.includes('probe.png')) || undefined, 5_000, 'the probe violation is seen');
    });
  });

  test('one border around a card: the card\'s own, the host asked to draw none', async () => {
    assert.equal(html.prefersBorder, false, 'the resource asks the host for no border');
    await withHost(browser.open(await connect(gw.mcpUrl, 'modern', { views: true }), html), async (host) => {
      await shown(host, 'terminal', { command: 'echo one border' });
      await host.view.locator('.card-output').waitFor();
      const frame = await host.page.locator('#frame iframe').evaluate((e) => getComputedStyle(e).borderTopWidth);
      assert.equal(frame, '0px', 'the host draws no border around the frame');
      // Every box from the frame's root down to the card: one draws a border.
      const borders = await host.view.locator('.card').evaluate((card) => {
        const drawn: string[] = [];
        const check = (e: Element) => {
          const st = getComputedStyle(e);
          if (['Top', 'Right', 'Bottom', 'Left'].some((side) => st.getPropertyValue(`border-${side.toLowerCase()}-width`) !== '0px' && st.getPropertyValue(`border-${side.toLowerCase()}-style`) !== 'none')) drawn.push(e.tagName.toLowerCase() + (e.className ? `.${String(e.className).split(' ').join('.')}` : ''));
        };
        for (let e: Element | null = card; e; e = e.parentElement) check(e);
        // Boxes inside it too, but for the outcome badge: a pill, not a box around content.
        for (const e of card.querySelectorAll('*:not(.outcome)')) if (getComputedStyle(e).display !== 'inline') check(e);
        return drawn;
      });
      assert.deepEqual(borders, ['section.card.card-output']);
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
