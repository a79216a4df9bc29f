import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ErrorCode, GatewayError } from '../../../../shared/errors.js';
import { redactOutbound } from '../../../core/redaction.js';
import type { ToolDefinition } from '../../../core/tool-types.js';
import { AFTER_NAVIGATE, ok, readOnly, tooLarge, type BrowserKit } from '../kit.js';
import type { VisionAnalyzer } from '../vision.js';

// browser_vision: a screenshot of the page, saved, and the vision model's answer about it (the
// analysis step is vision.ts's seam). The snapshot text sent with `annotate` leaves the gateway for
// that model, so it is redacted on its way out.

const ANNOTATION_CHARS = 3000;
const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47]);

export function visionTools(kit: BrowserKit, vision: VisionAnalyzer): ToolDefinition[] {
  const { sessions, s, snapshotText, tool } = kit;
  return [
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
