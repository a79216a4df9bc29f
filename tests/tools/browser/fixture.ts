import { rmSync } from 'node:fs';
import { after, before } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { startFixturePages, type FixturePages } from '../../fixtures/camofox/pages.js';
import { ALLOW_LOOPBACK_PAGES, browse, homeWithConfig } from '../../helpers/browser.js';
import { startStandin, type Standin } from '../../helpers/camofox.js';
import { openSession, startTestGateway, type TestGateway } from '../../helpers/gateway.js';

// Shared fixture for the browser tests against Camofox: the fixture pages, the Camofox stand-in
// driving Chromium, a HERMES_HOME whose config lets the browser open loopback pages, a gateway
// using that Camofox, and (unless `session: false`) one session of a modern client.

export interface BrowserSuite {
  readonly pages: FixturePages;
  readonly standin: Standin;
  readonly gw: TestGateway;
  readonly home: string;
  /** A browser tool called through the bridge in the suite's session (none with `session: false`). */
  browse(name: string, args?: Record<string, unknown>): ReturnType<typeof browse>;
}

/**
 * Opens a BrowserSuite before the file's tests and closes the session, the gateway, the stand-in
 * and the pages, and removes the home, after them. `user`: a fixed Camofox user
 * (CAMOFOX_USER_ID), so a test can list that user's tabs at the stand-in.
 */
export function browserSuite(options: { user?: string; session?: boolean } = {}): BrowserSuite {
  let pages: FixturePages | undefined;
  let standin: Standin | undefined;
  let gw: TestGateway | undefined;
  let home: string | undefined;
  let session: { client: Client; token: string } | undefined;
  before(async () => {
    pages = await startFixturePages();
    standin = await startStandin();
    home = homeWithConfig(ALLOW_LOOPBACK_PAGES);
    gw = await startTestGateway({ home, env: { CAMOFOX_URL: `http://127.0.0.1:${standin.port}`, ...(options.user === undefined ? {} : { CAMOFOX_USER_ID: options.user }) } });
    if (options.session !== false) session = await openSession(gw.mcpUrl);
  });
  after(async () => {
    await session?.client.close();
    await gw?.close();
    await standin?.stop();
    await pages?.close();
    if (home) rmSync(home, { recursive: true, force: true });
  });
  const open = <T>(part: T | undefined, name: string): T => {
    if (part === undefined) throw new Error(`the browser suite has no ${name} (not open, or used outside its tests)`);
    return part;
  };
  return {
    get pages() { return open(pages, 'pages'); },
    get standin() { return open(standin, 'stand-in'); },
    get gw() { return open(gw, 'gateway'); },
    get home() { return open(home, 'home'); },
    browse(name, args = {}) {
      const s = open(session, 'session');
      return browse(s.client, s.token, name, args);
    },
  };
}
