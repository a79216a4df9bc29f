import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { build } from 'esbuild';
import { chromium, type Browser, type FrameLocator, type Page } from 'playwright-core';
import { packageRoot } from '../../shared/package-root.js';
import { CHROMIUM_ARGS } from '../fixtures/camofox/browser.js';
import { CHROMIUM, ensurePackage } from '../../scripts/test-prerequisites.js';
import { ensureViewBuilt } from './view.js';

// The Node side of the view's browser tests: Debian's Chromium driven by playwright-core, a host
// page running ext-apps' AppBridge (tests/http/app-view/host/host.ts), and the host's tool calls sent to the
// real gateway by an SDK client holding the host's credential. The view's HTML is what
// resources/read returned, with the CSP its _meta.ui declares enforced in the frame.


interface Csp {
  connectDomains?: string[];
  resourceDomains?: string[];
  frameDomains?: string[];
  baseUriDomains?: string[];
}

/** The CSP a host derives from `_meta.ui.csp` (as ext-apps' reference sandbox does), injected as a meta tag. */
export function withDeclaredCsp(html: string, csp: Csp): string {
  const list = (domains: string[] | undefined, none: string) => (domains?.length ? domains.join(' ') : none);
  const resources = list(csp.resourceDomains, '');
  const policy = [
    "default-src 'none'",
    `script-src 'unsafe-inline' ${resources}`.trim(),
    `style-src 'unsafe-inline' ${resources}`.trim(),
    `img-src data: ${resources}`.trim(),
    `font-src data: ${resources}`.trim(),
    `connect-src ${list(csp.connectDomains, "'none'")}`,
    `frame-src ${list(csp.frameDomains, "'none'")}`,
    `base-uri ${list(csp.baseUriDomains, "'none'")}`,
    "form-action 'none'",
  ].join('; ');
  return html.replace('<head>', `<head><meta http-equiv="Content-Security-Policy" content="${policy}">`);
}

/** The view as a host loads it: its HTML under the CSP it declares, and whether it asked for the host's border. */
export interface HostedView {
  html: string;
  prefersBorder: boolean;
}

/**
 * The view as a host loads it: its HTML as `client`'s resources/read returns it (bundled from the
 * current sources first, ensureViewBuilt), under the CSP its `_meta.ui` declares, and its
 * `_meta.ui.prefersBorder` (the host draws a border around the frame when it is true).
 */
export async function viewAsHosted(client: Client): Promise<HostedView> {
  await ensureViewBuilt();
  const { contents } = await client.readResource({ uri: 'ui://hermes-mcp-gateway/result-view.html' });
  const ui = (contents[0]!._meta as { ui: { csp: Csp; prefersBorder?: boolean } }).ui;
  return { html: withDeclaredCsp((contents[0] as { text: string }).text, ui.csp), prefersBorder: ui.prefersBorder === true };
}

/**
 * Where a browser test writes its screenshots: VIEW_SCREENSHOTS_DIR when `npm run
 * docs:view-screenshots` asks for them (kept), else a temporary directory `remove` deletes.
 */
export function screenshotsDir(prefix: string): { dir: string; remove(): void } {
  const asked = process.env.VIEW_SCREENSHOTS_DIR;
  const dir = asked ?? mkdtempSync(join(tmpdir(), prefix));
  return { dir, remove: () => (asked ? undefined : rmSync(dir, { recursive: true, force: true })) };
}

async function hostScript(): Promise<string> {
  const out = await build({ entryPoints: [join(packageRoot(), 'tests', 'http', 'app-view', 'host', 'host.ts')], bundle: true, write: false, format: 'iife', platform: 'browser', target: 'es2022', logLevel: 'warning' });
  return out.outputFiles[0]!.text;
}

/** What tests/http/app-view/host/host.ts puts on the host page's window. */
interface HostApi {
  load(html: string, theme: 'light' | 'dark', prefersBorder: boolean): Promise<void>;
  deliver(input: unknown, result: unknown): Promise<void>;
  setTheme(theme: 'light' | 'dark'): Promise<void>;
  hide(): Promise<void>;
}

export interface HostCall {
  name: string;
  arguments: Record<string, unknown>;
  at: number;
}

export interface ViewHost {
  page: Page;
  view: FrameLocator;
  /** Every tools/call the view made through the bridge, in order. */
  calls: HostCall[];
  /** Console lines of the host and the view. */
  console: string[];
  /**
   * Every Content Security Policy violation in the host page or the view's frame, reported or
   * not: each `securitypolicyviolation` event (directive, blocked URI, sample), and each console
   * message Chromium writes for one ("Refused to ...", "... violates the following Content
   * Security Policy directive ...").
   */
  cspViolations: string[];
  deliver(input: Record<string, unknown>, result: unknown): Promise<void>;
  setTheme(theme: 'light' | 'dark'): Promise<void>;
  hide(): Promise<void>;
  /** A PNG of the view's frame at `dir/name.png`. */
  screenshot(dir: string, name: string): Promise<string>;
  close(): Promise<void>;
}

/** Runs `use` on a host page being opened, and closes the page whatever `use` does. */
export async function withHost<T>(opening: Promise<ViewHost>, use: (host: ViewHost) => Promise<T>): Promise<T> {
  const host = await opening;
  try {
    return await use(host);
  } finally {
    await host.close();
  }
}

/** How a frame's `securitypolicyviolation` event reaches the test: a console line with this prefix. */
const CSP_EVENT = 'securitypolicyviolation:';

export class ViewBrowser {
  private constructor(
    private readonly browser: Browser,
    private readonly script: string,
  ) {}

  static async launch(): Promise<ViewBrowser> {
    const [browser, script] = await Promise.all([chromium.launch({ executablePath: ensurePackage(CHROMIUM), headless: true, args: CHROMIUM_ARGS }), hostScript()]);
    return new ViewBrowser(browser, script);
  }

  /** A host page showing the view, its tool calls answered by `client`. */
  async open(client: Client, view: HostedView, options: { theme?: 'light' | 'dark'; width?: number } = {}): Promise<ViewHost> {
    const page = await this.browser.newPage({ viewport: { width: options.width ?? 720, height: 900 }, deviceScaleFactor: 1 });
    const calls: HostCall[] = [];
    const lines: string[] = [];
    const violations: string[] = [];
    page.on('console', (m) => {
      lines.push(m.text());
      if (m.text().startsWith(CSP_EVENT) || /Content Security Policy|Refused to (evaluate|execute|load|apply|connect|frame)/i.test(m.text())) violations.push(m.text());
    });
    page.on('pageerror', (e) => lines.push(`pageerror: ${e.message}`));
    // In every frame, before any of its scripts: the view's frame is a new document, so this runs
    // in it ahead of the view's own script and sees a violation made while the bundle loads.
    await page.addInitScript((prefix: string) => {
      document.addEventListener('securitypolicyviolation', (e) => console.error(`${prefix} ${e.violatedDirective} ${e.blockedURI} ${JSON.stringify(e.sample)}`), true);
    }, CSP_EVENT);
    await page.exposeFunction('hostCallTool', async (params: { name: string; arguments?: Record<string, unknown> }) => {
      calls.push({ name: params.name, arguments: params.arguments ?? {}, at: Date.now() });
      return client.callTool({ name: params.name, arguments: params.arguments ?? {} });
    });
    await page.setContent(`<!doctype html><html><body style="margin:0;padding:16px"><div id="frame"></div><script>${this.script}</script></body></html>`);
    await page.evaluate(([h, t, b]) => (globalThis as unknown as { host: HostApi }).host.load(h, t, b), [view.html, options.theme ?? 'light', view.prefersBorder] as const);
    const frameHandle = page.locator('#frame iframe');
    return {
      page,
      view: page.frameLocator('#frame iframe'),
      calls,
      console: lines,
      cspViolations: violations,
      deliver: (input, result) => page.evaluate(([i, r]) => (globalThis as unknown as { host: HostApi }).host.deliver(i, r), [input, result] as const),
      setTheme: (theme) => page.evaluate((t) => (globalThis as unknown as { host: HostApi }).host.setTheme(t), theme),
      hide: () => page.evaluate(() => (globalThis as unknown as { host: HostApi }).host.hide()),
      async screenshot(dir, name) {
        mkdirSync(dir, { recursive: true });
        const path = join(dir, `${name}.png`);
        await frameHandle.screenshot({ path, animations: 'disabled' });
        return path;
      },
      close: () => page.close(),
    };
  }

  close(): Promise<void> {
    return this.browser.close();
  }
}
