import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { viaBridge, startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { authCli, connectWithToken, createStaticToken } from '../../helpers/auth.js';
import { type HostedView, ViewBrowser, viewAsHosted } from '../../helpers/view-host.js';

// The view's tool calls are the host's tools/call requests, authorised like a model's: a host
// holding a read-only credential can follow a job (job_status is read-only) but its Cancel is
// refused with SCOPE_INSUFFICIENT, and a revoked credential gets nothing at all.


describe('the result view calls tools with the host credential', () => {
  let gw: TestGateway;
  let browser: ViewBrowser;
  let model: Client;
  let token: string;
  let html: HostedView;

  before(async () => {
    gw = await startTestGateway({ env: { HERMES_MCP_AUTH: 'on' } });
    browser = await ViewBrowser.launch();
    model = await connectWithToken(gw.mcpUrl, 'modern', createStaticToken(gw.home, 'model', 'full'));
    token = (await viaBridge(model, 'session_open')).data.session_token as string;
    html = await viewAsHosted(model);
  });
  after(async () => {
    await model?.close();
    await browser?.close();
    await gw?.close();
  });

  async function runningJob() {
    const { data } = await viaBridge(model, 'job_prepare', { command: 'sleep 60', workdir: gw.home }, token);
    const job = { job_id: data.job_id as string, recovery_token: data.recovery_token as string };
    const { result } = await viaBridge(model, 'job_start', job, token);
    return { job, input: { calls: [{ name: 'job_start', arguments: job }] }, result };
  }

  test('read scope: the view follows the job, and its Cancel is refused like any call without the full scope', async () => {
    const host = await browser.open(await connectWithToken(gw.mcpUrl, 'modern', createStaticToken(gw.home, 'viewer', 'read')), html);
    const { job, input, result } = await runningJob();
    try {
      await host.deliver(input, result);
      await host.view.locator('.state-running').waitFor();
      await host.view.locator('button.cancel').click();
      await host.view.locator('button.confirm-yes').click();
      await host.view.locator('.card-error .error-code').waitFor();
      assert.equal(await host.view.locator('.card-error .error-code').textContent(), 'SCOPE_INSUFFICIENT');
      assert.equal((await viaBridge(model, 'job_status', job)).data.state, 'running', 'nothing was cancelled');
      assert.ok(host.calls.some((c) => JSON.stringify(c.arguments).includes('"job_status"')), 'job_status was allowed');
    } finally {
      await host.close();
      await viaBridge(model, 'job_cancel', job);
    }
  });

  test('a revoked credential: the view says the call failed, and the job is untouched', async () => {
    const viewerToken = createStaticToken(gw.home, 'revoked-viewer', 'full');
    const host = await browser.open(await connectWithToken(gw.mcpUrl, 'modern', viewerToken), html);
    const { job, input, result } = await runningJob();
    try {
      assert.equal(authCli(gw.home, ['revoke', 'revoked-viewer']).status, 0);
      await host.deliver(input, result);
      await host.view.locator('button.cancel').click();
      await host.view.locator('button.confirm-yes').click();
      await host.view.locator('.card-error').waitFor();
      assert.equal((await viaBridge(model, 'job_status', job)).data.state, 'running', 'nothing was cancelled');
    } finally {
      await host.close();
      await viaBridge(model, 'job_cancel', job);
    }
  });
});
