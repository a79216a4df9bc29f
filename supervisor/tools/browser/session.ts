import { ErrorCode, GatewayError } from '../../../shared/errors.js';
import { withKeyedLocks } from '../../../shared/keyed-lock.js';
import type { BrowserBindings, Binding } from './bindings.js';
import { budgetSpent, callBudget, camofoxFailure, isStaleTab, remainingMs, type CallBudget, type CamofoxClient, type CamofoxReply } from './client.js';
import type { BrowserSettings } from './settings.js';
import { checkPageUrl, type UrlPolicy } from './url-policy.js';

// One owner's browsing against Camofox: its tab binding, the REST calls on that tab, and the two
// recoveries Hermes' Camofox path has. browser_navigate recovers once from a stale tab (404 "Tab
// not found", or 410 after a browser restart or page crash) by opening a fresh tab for the owner;
// every other tool answers STALE_TAB (retryable, recovery browser_navigate) instead of replaying
// an action on a page that is not the one the caller saw. Calls of one owner run one at a time,
// so two concurrent navigations never open two tabs for it; a call waiting its turn leaves the
// queue when its client goes away. Each call has one time budget, which every request it makes
// shares (client.ts CallBudget), so a call ends within it however many requests it takes.

export interface TabCall {
  body?: Record<string, unknown>;
}

/** One tool call as the session sees it: its signal (client gone, session closed) and its budget. */
export interface BrowserCall {
  signal: AbortSignal;
  budget: CallBudget;
}

export class CamofoxSessions {
  readonly urlPolicy: UrlPolicy;

  constructor(
    readonly client: CamofoxClient,
    readonly bindings: BrowserBindings,
    readonly settings: BrowserSettings,
  ) {
    this.urlPolicy = { allowPrivateUrls: settings.allowPrivateUrls, urlMaxChars: settings.urlMaxChars, lookupTimeoutMs: settings.commandTimeoutMs };
  }

  /**
   * Runs `work` alone among this owner's browser calls. Waiting for the turn ends with CANCELLED
   * when `signal` aborts (the queued turn is then passed on at once); once `work` runs, it answers
   * for the signal itself.
   */
  exclusive<T>(ownerId: string, signal: AbortSignal, work: () => Promise<T>): Promise<T> {
    const cancelled = () => new GatewayError(ErrorCode.CANCELLED, 'the call was cancelled while it waited for this session\'s browser call before it');
    let started = false;
    const turn = withKeyedLocks([`browser:${ownerId}`], () => {
      if (signal.aborted) throw cancelled();
      started = true;
      return work();
    });
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => {
        if (!started) reject(cancelled());
      };
      signal.addEventListener('abort', onAbort, { once: true });
      if (signal.aborted) onAbort();
      turn.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
    });
  }

  /** The URL policy with DNS lookups bounded by what is left of the call's budget. */
  urlPolicyWithin(budget: CallBudget): UrlPolicy {
    return { ...this.urlPolicy, lookupTimeoutMs: Math.min(this.urlPolicy.lookupTimeoutMs, remainingMs(budget)) };
  }

  /** BROWSER_TIMEOUT when the call's budget is already spent (say, by its DNS lookup). */
  checkBudget(budget: CallBudget, next: string): void {
    if (remainingMs(budget) === 0) throw budgetSpent(this.client.baseUrl, budget, next);
  }

  /** The owner's binding with its tab, or BROWSER_NOT_NAVIGATED (Hermes: "No browser session"). */
  bound(ownerId: string): Binding & { tabId: string } {
    const binding = this.bindings.peek(ownerId);
    if (!binding?.tabId) {
      throw new GatewayError(ErrorCode.BROWSER_NOT_NAVIGATED, 'No browser session. Call browser_navigate first.', { recovery: 'browser_navigate' });
    }
    return binding as Binding & { tabId: string };
  }

  /** A request on the owner's tab: `userId` goes in the body (POST) or the query (GET), as Camofox wants it. */
  async onTab(ownerId: string, { signal, budget }: BrowserCall, method: 'GET' | 'POST', suffix: string, action: string, call: TabCall = {}): Promise<CamofoxReply> {
    const binding = this.bound(ownerId);
    const path = `/tabs/${encodeURIComponent(binding.tabId)}${suffix}`;
    const reply =
      method === 'GET'
        ? await this.client.request('GET', path, { query: { userId: binding.userId }, budget, signal })
        : await this.client.request('POST', path, { body: { userId: binding.userId, ...call.body }, budget, signal });
    if (reply.status < 200 || reply.status > 299) throw camofoxFailure(reply, action);
    return reply;
  }

  /** Opens `url` in the owner's tab (a new tab the first time, or after the old one went stale). Returns the URL Camofox landed on. */
  async navigate(ownerId: string, { signal, budget }: BrowserCall, url: string): Promise<string> {
    const binding = this.bindings.get(ownerId);
    let landed: string | undefined;
    if (binding.tabId) {
      const reply = await this.client.request('POST', `/tabs/${encodeURIComponent(binding.tabId)}/navigate`, { body: { userId: binding.userId, url }, budget, signal });
      if (isStaleTab(reply)) {
        binding.tabId = undefined; // rebind below, once
      } else if (reply.status < 200 || reply.status > 299) {
        throw camofoxFailure(reply, 'browser_navigate');
      } else {
        landed = typeof reply.json?.url === 'string' ? reply.json.url : url;
      }
    }
    if (!binding.tabId) {
      const reply = await this.client.request('POST', '/tabs', { body: { userId: binding.userId, listItemId: binding.sessionKey, url }, budget, signal });
      if (reply.status < 200 || reply.status > 299) throw camofoxFailure(reply, 'browser_navigate');
      const tabId = reply.json?.tabId;
      if (typeof tabId !== 'string' || tabId === '') throw new GatewayError(ErrorCode.BROWSER_ACTION_FAILED, 'Camofox opened no tab (its answer had no tabId)');
      binding.tabId = tabId;
      landed = typeof reply.json?.url === 'string' ? reply.json.url : url;
    }
    return landed ?? url;
  }

  /**
   * Refuses a page the tab landed on (after redirects, a click or going back) that navigation would
   * have refused: the tab is closed so nothing more is read from it.
   */
  async guardLanded(ownerId: string, { signal, budget }: BrowserCall, landed: string): Promise<void> {
    if (!/^https?:/i.test(landed)) return; // about:blank, data: after a failed load: nothing reachable
    try {
      await checkPageUrl(landed, this.urlPolicyWithin(budget), true);
    } catch (e) {
      const binding = this.bindings.peek(ownerId);
      if (binding?.tabId) {
        const tabId = binding.tabId;
        binding.tabId = undefined;
        // Its own short budget: the close must be tried even when the call's budget is spent.
        const closing = callBudget(this.settings.commandTimeoutMs, 'browser.command_timeout');
        await this.client.request('DELETE', `/tabs/${encodeURIComponent(tabId)}`, { query: { userId: binding.userId }, budget: closing, signal }).catch(() => undefined);
      }
      if (e instanceof GatewayError) throw new GatewayError(e.code, `the page went on to ${landed}: ${e.message}; its tab was closed`, e.details);
      throw e;
    }
  }

  /** session_close: drop the owner's binding; an ephemeral Camofox user that was its alone is destroyed, as Hermes' camofox_close does. */
  async release(ownerId: string): Promise<void> {
    const binding = this.bindings.drop(ownerId);
    if (!binding?.exclusiveUser || !binding.tabId) return;
    await this.client
      .request('DELETE', `/sessions/${encodeURIComponent(binding.userId)}`, { budget: callBudget(this.settings.commandTimeoutMs, 'browser.command_timeout') })
      .catch(() => undefined); // Camofox reaps idle users itself; a failed cleanup must not fail session_close
  }
}
