import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ErrorCode, GatewayError } from '../../../shared/errors.js';
import { visionRefusal, visionUnavailable } from '../../../supervisor/tools/browser/vision.js';

// browser_vision's analysis step without a vision model: a refusal that keeps the screenshot.

test('visionRefusal: VISION_UNAVAILABLE naming the saved screenshot and the way on', () => {
  const e = visionRefusal('/home/h/browser_screenshots/a.png', 'the model timed out');
  assert.ok(e instanceof GatewayError);
  assert.equal(e.code, ErrorCode.VISION_UNAVAILABLE);
  assert.equal(e.message, 'the screenshot was taken and saved to /home/h/browser_screenshots/a.png, but the model timed out; use browser_snapshot for the page\'s text and refs');
  assert.deepEqual(e.details, { screenshot_path: '/home/h/browser_screenshots/a.png', retryable: false, recovery: 'browser_snapshot' });
});

test('visionUnavailable: never available, and every analysis rejects with the refusal', async () => {
  assert.equal(visionUnavailable.available(), false);
  const request = { png: Buffer.from([0x89, 0x50]), screenshotPath: '/tmp/shot.png', question: 'what is shown?', signal: new AbortController().signal };
  await assert.rejects(visionUnavailable.analyze(request), (e: unknown) => {
    assert.ok(e instanceof GatewayError);
    assert.equal(e.code, ErrorCode.VISION_UNAVAILABLE);
    assert.match(e.message, /^the screenshot was taken and saved to \/tmp\/shot\.png, but this gateway has no vision model to analyse it/);
    assert.equal(e.details?.screenshot_path, '/tmp/shot.png');
    return true;
  });
});
