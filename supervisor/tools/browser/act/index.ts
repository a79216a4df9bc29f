import type { ToolDefinition } from '../../../core/tool-types.js';
import { AFTER_NAVIGATE, acts, noArgs, ok, refArg, tooLarge, type BrowserKit } from '../kit.js';

// browser_click, browser_type, browser_press, browser_scroll and browser_back: act on the page.

const SCROLL_REPEATS = 5; // Hermes scrolls 5 × Camofox' 500 px step, about one screenful and a half
const KEY_MAX_CHARS = 64;

export function actTools(kit: BrowserKit): ToolDefinition[] {
  const { sessions, s, snapshotText, tool } = kit;
  return [
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
  ];
}
