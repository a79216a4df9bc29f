import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ErrorCode, GatewayError, isGatewayError } from '../../../shared/errors.js';
import type { HermesToolResult } from '../../../shared/worker-protocol/hermes-tools.js';
import type { VisionRequest } from '../../../supervisor/tools/browser/vision.js';
import type { ToolServerCall } from '../../../supervisor/tools/hermes-tools/tools.js';
import { toolServerVision } from '../../../supervisor/tools/hermes-tools/vision.js';

// browser_vision's analysis through the tool server's vision_analyze (vision.ts), with a stand-in call.

const shot = '/hh/browser_screenshots/s.png';
const request = (annotation?: string): VisionRequest => ({ png: Buffer.alloc(0), screenshotPath: shot, question: 'What is shown?', signal: new AbortController().signal, ...(annotation ? { annotation } : {}) });
const json = (value: unknown): HermesToolResult => ({ content: [{ type: 'text', text: JSON.stringify(value) }] });

function analyzer(answer: () => Promise<HermesToolResult>, offered = true) {
  const calls: Array<[string, Record<string, unknown>]> = [];
  const call: ToolServerCall = (name, args) => {
    calls.push([name, args]);
    return answer();
  };
  return { vision: toolServerVision({ offered: () => offered, notOffered: () => 'vision_analyze is not offered', call }), calls };
}

const refusedWith = (why: RegExp) => (e: unknown) =>
  isGatewayError(e) && e.code === ErrorCode.VISION_UNAVAILABLE && e.details?.screenshot_path === shot && why.test(e.message);

test("Hermes' analysis string; the question goes along, with the snapshot excerpt when annotating", async () => {
  const { vision, calls } = analyzer(async () => json({ success: true, analysis: 'A login form.' }));
  assert.equal(vision.available(), true);
  assert.equal(await vision.analyze(request()), 'A login form.');
  assert.deepEqual(calls[0], ['vision_analyze', { image_url: shot, question: 'What is shown?' }]);
  await vision.analyze(request('@e1 button "Sign in"'));
  assert.deepEqual(calls[1], [
    'vision_analyze',
    { image_url: shot, question: "What is shown?\n\nThe page's accessibility snapshot (elements with their @eN refs), to relate what you see to refs:\n@e1 button \"Sign in\"" },
  ]);
});

test('not offered: refused before any call, with the reason', async () => {
  const { vision, calls } = analyzer(async () => json({}), false);
  assert.equal(vision.available(), false);
  await assert.rejects(vision.analyze(request()), refusedWith(/but vision_analyze is not offered;/));
  assert.equal(calls.length, 0);
});

test("Hermes' own refusal, a result without analysis, an error result, a result without a value: VISION_UNAVAILABLE with the reason", async () => {
  await assert.rejects(analyzer(async () => json({ success: false, error: 'no auxiliary model' })).vision.analyze(request()), refusedWith(/could not analyse it: no auxiliary model/));
  await assert.rejects(analyzer(async () => json({ success: true })).vision.analyze(request()), refusedWith(/could not analyse it: no analysis came back/));
  await assert.rejects(analyzer(async () => ({ ...json({ analysis: 'x' }), isError: true })).vision.analyze(request()), refusedWith(/answered without Hermes' result \(an error result\)/));
  await assert.rejects(analyzer(async () => ({ content: [{ type: 'text', text: 'plain' }] })).vision.analyze(request()), refusedWith(/answered without Hermes' result;/));
});

test("the tool server's own failure keeps its code and details, the screenshot path added", async () => {
  const { vision } = analyzer(async () => {
    throw new GatewayError(ErrorCode.HERMES_TOOLS_TIMEOUT, 'took too long', { component: 'hermes_tools' });
  });
  await assert.rejects(vision.analyze(request()), (e) => isGatewayError(e) && e.code === ErrorCode.HERMES_TOOLS_TIMEOUT && e.message === 'took too long' && e.details?.component === 'hermes_tools' && e.details.screenshot_path === shot);
});
