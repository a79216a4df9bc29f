import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkExpression, riskyExpressionReason } from '../../../supervisor/tools/browser/evaluate-policy.js';

// What a browser_console expression may do: sensitive page primitives by their spellings, and URL literals aimed inside.

test('riskyExpressionReason names the primitive, also spelled across string literals or escaped', () => {
  assert.equal(riskyExpressionReason('document.title'), null);
  assert.equal(riskyExpressionReason('document . cookie'), 'document.cookie');
  assert.equal(riskyExpressionReason('window.localStorage.getItem("k")'), 'web storage');
  assert.equal(riskyExpressionReason('caches.keys()'), 'Cache Storage');
  assert.equal(riskyExpressionReason('navigator.clipboard.readText()'), 'navigator sensitive API');
  assert.equal(riskyExpressionReason('fetch ("/x")'), 'network request');
  assert.equal(riskyExpressionReason('navigator.sendBeacon("/x", d)'), 'network beacon');
  assert.equal(riskyExpressionReason('document.forms[0].elements[1].value'), 'form value extraction');
  assert.equal(riskyExpressionReason('document["coo" + "kie"]'), 'document.cookie');
  assert.equal(riskyExpressionReason('window["\\x66etch"]'), 'network request');
  assert.equal(riskyExpressionReason('window["\\u0069ndexedDB"]'), 'IndexedDB');
});

test('checkExpression: BROWSER_EVALUATE_BLOCKED for a primitive unless unsafe evaluation is allowed; URL literals to private addresses unless allowed, to metadata always', () => {
  const strict = { allowUnsafeEvaluate: false, allowPrivateUrls: false };
  assert.throws(() => checkExpression('document.cookie', strict), (e: { code?: string; details?: Record<string, unknown> }) => {
    assert.equal(e.code, 'BROWSER_EVALUATE_BLOCKED');
    assert.deepEqual(e.details, { reason: 'sensitive_primitive', primitive: 'document.cookie' });
    return true;
  });
  checkExpression('document.cookie', { allowUnsafeEvaluate: true, allowPrivateUrls: false });
  const privateCases = ['"http://127.0.0.1:8080/admin"', "'http://localhost/x'", '`https://app.localhost/`', '"http://10.1.2.3/a."'];
  for (const expr of privateCases) {
    assert.throws(() => checkExpression(`location.href = ${expr}`, { allowUnsafeEvaluate: true, allowPrivateUrls: false }), { code: 'BROWSER_EVALUATE_BLOCKED', details: { reason: 'private_address' } }, expr);
    checkExpression(`location.href = ${expr}`, { allowUnsafeEvaluate: true, allowPrivateUrls: true });
  }
  assert.throws(() => checkExpression('x = "http://169.254.169.254/latest"', { allowUnsafeEvaluate: true, allowPrivateUrls: true }), { code: 'BROWSER_EVALUATE_BLOCKED' });
  checkExpression('x = "https://example.com/page"; y = "http://[bad"', strict);
});
