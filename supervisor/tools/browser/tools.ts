import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ErrorCode, GatewayError } from '../../../shared/errors.js';
import { redactOutbound } from '../../core/redaction.js';
import { withHermesArgumentRepair } from '../../core/hermes-args.js';
import type { CallContext, ToolDefinition, ToolOutcome } from '../../core/tool-types.js';
import { checkExpression } from './evaluate-policy.js';
import { cleanRef, imagesOf, truncateSnapshot } from './page-text.js';
import { callBudget } from './client.js';
import type { BrowserCall, CamofoxSessions } from './session.js';
import { checkPageUrl } from './url-policy.js';
import type { VisionAnalyzer } from './vision.js';

// The ten Hermes browser tools on Camofox (tools/browser_tool.py schemas, tools/browser_camofox.py
// calls and result shapes). Descriptions say what this gateway serves: browser_vision's says whether
// its analysis step works here (vision.ts; known before these tools are built, since Hermes' tool
// server is asked for its tools first), and none points at tools it may not have.

const SCROLL_REPEATS = 5; // Hermes scrolls 5 × Camofox' 500 px step, about one screenful and a half
const KEY_MAX_CHARS = 64;
const ANNOTATION_CHARS = 3000;
const NEEDS_OWNER = 'Needs a browser session: pass session_open\'s session_token (or use a legacy MCP session); each session has its own tab.';
const AFTER_NAVIGATE = 'Requires browser_navigate to be called first.';
const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47]);

const ok = (structured: Record<string, unknown>): ToolOutcome => ({ structured: { success: true, ...structured } });

function tooLarge(what: string, length: number, max: number, limit: string): GatewayError {
  return new GatewayError(ErrorCode.BROWSER_INPUT_TOO_LARGE, `${what} is ${length} characters; the limit is ${max} (${limit})`);
}

function refArg(raw: unknown): string {
  const ref = cleanRef(String(raw));
  if (!ref) throw new GatewayError(ErrorCode.BROWSER_REF_INVALID, `${JSON.stringify(String(raw).slice(0, 40))} is not an element ref: use a ref like @e5 from browser_snapshot`, { recovery: 'browser_snapshot' });
  return ref;
}

/** Python's type name for a JSON value, as Hermes reports result_type. */
function pythonType(value: unknown): string {
  if (value === null || value === undefined) return 'NoneType';
  if (Array.isArray(value)) return 'list';
  if (typeof value === 'string') return 'str';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'float';
  return 'dict';
}

interface Deps {
  sessions: CamofoxSessions;
  vision: VisionAnalyzer;
}

export function browserTools({ sessions, vision }: Deps): ToolDefinition[] {
  const s = sessions.settings;
  const snapshotText = async (ctx: CallContext, call: BrowserCall): Promise<{ snapshot: string; refsCount: number }> => {
    const reply = await sessions.onTab(ctx.owner.id, call, 'GET', '/snapshot', 'browser_snapshot');
    return { snapshot: typeof reply.json?.snapshot === 'string' ? reply.json.snapshot : '', refsCount: Number(reply.json?.refsCount ?? 0) };
  };
  type Run = (args: Record<string, unknown>, ctx: CallContext, call: BrowserCall) => Promise<ToolOutcome>;
  // The call's one budget starts once it has its turn: browser.command_timeout, or the navigation
  // budget for the tools that load a page.
  // A failed call says `success: false` next to its error, as every Hermes browser tool does.
  const owned = (run: Run, budget: 'command' | 'navigate') => (args: Record<string, unknown>, ctx: CallContext) =>
    sessions
      .exclusive(ctx.owner.id, ctx.signal, () =>
        run(args, ctx, { signal: ctx.signal, budget: budget === 'navigate' ? callBudget(s.navigateTimeoutMs, 'browserNavigateTimeoutSeconds') : callBudget(s.commandTimeoutMs, 'browser.command_timeout') }),
      )
      .catch((e: unknown) => {
        if (e instanceof GatewayError) throw new GatewayError(e.code, e.message, { success: false, ...e.details });
        throw e;
      });
  const tool = (def: Omit<ToolDefinition, 'requiresOwner' | 'holdsLease' | 'handler'> & { run: Run; budget?: 'navigate' }): ToolDefinition => {
    const { run, budget, ...rest } = def;
    // holdsLease: session_close releases the binding only after the owner's browser calls settled.
    // Hermes' dispatch coercion (supervisor/core/hermes-args.ts): `annotate: "true"` is a boolean, as there.
    return withHermesArgumentRepair({ ...rest, requiresOwner: true, holdsLease: true, handler: owned(run, budget ?? 'command') });
  };
  const readOnly = { readOnlyHint: true, destructiveHint: false, openWorldHint: true, idempotentHint: true };
  const acts = { readOnlyHint: false, destructiveHint: false, openWorldHint: true, idempotentHint: false };
  const noArgs = { type: 'object' as const, properties: {}, additionalProperties: false };

  return [
    tool({
      name: 'browser_navigate',
      description: `Navigate to a URL (http or https) in the browser. Opens this session's tab on first use and returns a compact accessibility snapshot of the page with element refs (@e1, @e2, ...) for browser_click and browser_type, so a separate browser_snapshot is not needed. Loopback, private-network and cloud-metadata addresses are refused unless the host allows private addresses. ${NEEDS_OWNER}`,
      inputSchema: { type: 'object', properties: { url: { type: 'string', description: 'The URL to navigate to (e.g., https://example.com)' } }, required: ['url'], additionalProperties: false },
      annotations: { ...acts, title: 'Open a web page' },
      budget: 'navigate',
      async run(args, ctx, call) {
        const url = await checkPageUrl(String(args.url), sessions.urlPolicyWithin(call.budget));
        sessions.checkBudget(call.budget, 'open the page');
        const landed = await sessions.navigate(ctx.owner.id, call, url);
        await sessions.guardLanded(ctx.owner.id, call, landed);
        const result: Record<string, unknown> = { url: landed, title: '' };
        try {
          // Hermes: the snapshot is a bonus; a navigation that worked is reported even without it.
          const snap = await snapshotText(ctx, call);
          result.snapshot = truncateSnapshot(snap.snapshot, s.snapshotMaxChars);
          result.element_count = snap.refsCount;
        } catch (e) {
          if (e instanceof GatewayError && e.code === ErrorCode.CANCELLED) throw e;
        }
        return ok(result);
      },
    }),
    tool({
      name: 'browser_snapshot',
      description: `Get a text-based snapshot of the current page's accessibility tree: interactive elements carry ref IDs (like @e5) for browser_click and browser_type. A snapshot longer than ${s.snapshotMaxChars} characters is cut at a line boundary with a note. ${AFTER_NAVIGATE}`,
      inputSchema: {
        type: 'object',
        properties: { full: { type: 'boolean', description: 'Accepted for compatibility; this browser always returns the same interactive snapshot.', default: false } },
        additionalProperties: false,
      },
      annotations: { ...readOnly, title: 'Read the page' },
      async run(_args, ctx, call) {
        const snap = await snapshotText(ctx, call);
        return ok({ snapshot: truncateSnapshot(snap.snapshot, s.snapshotMaxChars), element_count: snap.refsCount });
      },
    }),
    tool({
      name: 'browser_click',
      description: `Click on an element identified by its ref ID from the snapshot (e.g., '@e5'). ${AFTER_NAVIGATE}`,
      inputSchema: { type: 'object', properties: { ref: { type: 'string', description: "The element reference from the snapshot (e.g., '@e5', '@e12')" } }, required: ['ref'], additionalProperties: false },
      annotations: { ...acts, title: 'Click an element' },
      async run(args, ctx, call) {
        const ref = refArg(args.ref);
        const reply = await sessions.onTab(ctx.owner.id, call, 'POST', '/click', 'browser_click', { body: { ref } });
        const url = typeof reply.json?.url === 'string' ? reply.json.url : '';
        await sessions.guardLanded(ctx.owner.id, call, url);
        return ok({ clicked: ref, url });
      },
    }),
    tool({
      name: 'browser_type',
      description: `Type text into an input field identified by its ref ID. Clears the field first, then types the new text. ${AFTER_NAVIGATE}`,
      inputSchema: {
        type: 'object',
        properties: {
          ref: { type: 'string', description: "The element reference from the snapshot (e.g., '@e3')" },
          text: { type: 'string', description: `The text to type into the field (at most ${s.typeMaxChars} characters)` },
        },
        required: ['ref', 'text'],
        additionalProperties: false,
      },
      annotations: { ...acts, title: 'Type into a field' },
      async run(args, ctx, call) {
        const ref = refArg(args.ref);
        const text = String(args.text);
        if (text.length > s.typeMaxChars) throw tooLarge('text', text.length, s.typeMaxChars, 'browserTypeMaxChars');
        await sessions.onTab(ctx.owner.id, call, 'POST', '/type', 'browser_type', { body: { ref, text } });
        return ok({ typed: text, element: ref });
      },
    }),
    tool({
      name: 'browser_press',
      description: `Press a keyboard key. Useful for submitting forms (Enter), navigating (Tab), or keyboard shortcuts. ${AFTER_NAVIGATE}`,
      inputSchema: { type: 'object', properties: { key: { type: 'string', description: "Key to press (e.g., 'Enter', 'Tab', 'Escape', 'ArrowDown')" } }, required: ['key'], additionalProperties: false },
      annotations: { ...acts, title: 'Press a key' },
      async run(args, ctx, call) {
        const key = String(args.key);
        if (key.length > KEY_MAX_CHARS) throw tooLarge('key', key.length, KEY_MAX_CHARS, 'Playwright key names are short');
        await sessions.onTab(ctx.owner.id, call, 'POST', '/press', 'browser_press', { body: { key } });
        return ok({ pressed: key });
      },
    }),
    tool({
      name: 'browser_scroll',
      description: `Scroll the page in a direction, about one and a half screens per call. Use this to reveal more content that may be below or above the current viewport. ${AFTER_NAVIGATE}`,
      inputSchema: { type: 'object', properties: { direction: { type: 'string', enum: ['up', 'down'], description: 'Direction to scroll' } }, required: ['direction'], additionalProperties: false },
      annotations: { ...acts, title: 'Scroll the page' },
      async run(args, ctx, call) {
        const direction = String(args.direction);
        for (let i = 0; i < SCROLL_REPEATS; i++) await sessions.onTab(ctx.owner.id, call, 'POST', '/scroll', 'browser_scroll', { body: { direction } });
        return ok({ scrolled: direction });
      },
    }),
    tool({
      name: 'browser_back',
      description: `Navigate back to the previous page in browser history. ${AFTER_NAVIGATE}`,
      inputSchema: noArgs,
      annotations: { ...acts, title: 'Go back' },
      budget: 'navigate',
      async run(_args, ctx, call) {
        const reply = await sessions.onTab(ctx.owner.id, call, 'POST', '/back', 'browser_back');
        const url = typeof reply.json?.url === 'string' ? reply.json.url : '';
        await sessions.guardLanded(ctx.owner.id, call, url);
        return ok({ url });
      },
    }),
    tool({
      name: 'browser_get_images',
      description: `Get a list of the images on the current page with their URLs and alt text, read from the page's accessibility snapshot. ${AFTER_NAVIGATE}`,
      inputSchema: noArgs,
      annotations: { ...readOnly, title: 'List images' },
      async run(_args, ctx, call) {
        const images = imagesOf((await snapshotText(ctx, call)).snapshot);
        return ok({ images, count: images.length });
      },
    }),
    tool({
      name: 'browser_console',
      description:
        "Evaluate a JavaScript expression in the current page and return its JSON-serialized value (expression). Console log capture is not available with this browser (Camofox): without an expression the answer is an empty log with a note. Expressions using cookies, storage, clipboard, network requests or form values, or naming private addresses, are refused unless the host allows them. " +
        AFTER_NAVIGATE,
      inputSchema: {
        type: 'object',
        properties: {
          clear: { type: 'boolean', default: false, description: 'Accepted for compatibility; there is no console log to clear with this browser.' },
          expression: { type: 'string', description: `JavaScript expression to evaluate in the page context (at most ${s.expressionMaxChars} characters), e.g. 'document.title' or 'document.querySelectorAll("a").length'.` },
        },
        additionalProperties: false,
      },
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: true, title: 'Evaluate in the page' },
      async run(args, ctx, call) {
        if (typeof args.expression !== 'string' || args.expression.trim() === '') {
          return ok({
            console_messages: [],
            js_errors: [],
            total_messages: 0,
            total_errors: 0,
            // Hermes' note points at browser_vision too; here only when its analysis step works.
            note: `Console log capture is not available with the Camofox backend. Use ${vision.available() ? 'browser_snapshot or browser_vision' : 'browser_snapshot'} to inspect page state.`,
          });
        }
        const expression = args.expression;
        if (expression.length > s.expressionMaxChars) throw tooLarge('expression', expression.length, s.expressionMaxChars, 'browserExpressionMaxChars');
        checkExpression(expression, { allowUnsafeEvaluate: s.allowUnsafeEvaluate, allowPrivateUrls: s.allowPrivateUrls });
        let reply;
        try {
          reply = await sessions.onTab(ctx.owner.id, call, 'POST', '/evaluate', 'browser_console', { body: { expression } });
        } catch (e) {
          if (e instanceof GatewayError && e.code === ErrorCode.BROWSER_ACTION_FAILED && /\b(404|405|501)\b|not found|cannot post/i.test(e.message)) {
            throw new GatewayError(ErrorCode.BROWSER_ACTION_FAILED, 'JavaScript evaluation is not supported by this Camofox server', { retryable: false });
          }
          throw e;
        }
        let result: unknown = reply.json?.result ?? null;
        if (typeof result === 'string') {
          try {
            result = JSON.parse(result) as unknown;
          } catch {
            // a plain string stays a string
          }
        }
        return ok({ result, result_type: pythonType(result) });
      },
    }),
    tool({
      name: 'browser_vision',
      description: `Take a screenshot of the current page (saved under $HERMES_HOME/browser_screenshots) for visual questions: CAPTCHAs, complex layouts, what the text snapshot misses. ${
        vision.available()
          ? "Hermes' vision model answers the question about it; the result has the analysis and the screenshot_path."
          : "The screenshot step works; its analysis needs Hermes' vision model, which this gateway does not reach (Hermes' tool server serves no vision_analyze here), so the call answers VISION_UNAVAILABLE with the saved screenshot_path."
      } ${AFTER_NAVIGATE}`,
      inputSchema: {
        type: 'object',
        properties: {
          question: { type: 'string', description: `What you want to know about the page visually (at most ${s.questionMaxChars} characters).` },
          annotate: { type: 'boolean', default: false, description: 'Also pass the first part of the accessibility snapshot, so element refs (@eN) can be matched to what is seen.' },
        },
        required: ['question'],
        additionalProperties: false,
      },
      annotations: { ...readOnly, idempotentHint: false, title: 'Look at the page' },
      async run(args, ctx, call) {
        const question = String(args.question);
        if (question.length > s.questionMaxChars) throw tooLarge('question', question.length, s.questionMaxChars, 'browserQuestionMaxChars');
        const reply = await sessions.onTab(ctx.owner.id, call, 'GET', '/screenshot', 'browser_vision');
        const png = reply.bytes;
        if (!png || !png.subarray(0, 4).equals(PNG_MAGIC)) throw new GatewayError(ErrorCode.BROWSER_ACTION_FAILED, 'Camofox answered the screenshot request without a PNG image');
        mkdirSync(s.screenshotDir, { recursive: true, mode: 0o700 });
        const screenshotPath = join(s.screenshotDir, `browser_screenshot_${randomBytes(4).toString('hex')}.png`);
        writeFileSync(screenshotPath, png, { mode: 0o600, flag: 'wx' });
        let annotation: string | undefined;
        if (args.annotate === true) {
          try {
            annotation = redactOutbound((await snapshotText(ctx, call)).snapshot.slice(0, ANNOTATION_CHARS));
          } catch (e) {
            if (e instanceof GatewayError && e.code === ErrorCode.CANCELLED) throw e;
          }
        }
        const analysis = await vision.analyze({ png, screenshotPath, question, ...(annotation ? { annotation } : {}), signal: ctx.signal });
        return ok({ analysis, screenshot_path: screenshotPath });
      },
    }),
  ];
}
