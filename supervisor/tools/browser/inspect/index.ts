import { ErrorCode, GatewayError } from '../../../../shared/errors.js';
import type { ToolDefinition } from '../../../core/tool-types.js';
import { checkExpression } from '../evaluate-policy.js';
import { AFTER_NAVIGATE, noArgs, ok, readOnly, tooLarge, type BrowserKit } from '../kit.js';
import { imagesOf } from '../page-text.js';
import type { VisionAnalyzer } from '../vision.js';

// browser_get_images and browser_console: the page's images, and its console (or one expression
// evaluated in it, checked by evaluate-policy.ts).

/** Python's type name for a JSON value, as Hermes reports result_type. */
function pythonType(value: unknown): string {
  if (value === null || value === undefined) return 'NoneType';
  if (Array.isArray(value)) return 'list';
  if (typeof value === 'string') return 'str';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'float';
  return 'dict';
}

export function inspectTools(kit: BrowserKit, vision: VisionAnalyzer): ToolDefinition[] {
  const { sessions, s, snapshotText, tool } = kit;
  return [
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
  ];
}
