import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ErrorCode } from '../../shared/errors.js';
import { defaultLimits } from '../../shared/limits.js';
import { capText, errorOutcome, fileReadOutcome, normalizeResult, TRUNCATION_MARKER } from '../../supervisor/core/result.js';
import type { ContentBlock, NormalizedToolResult } from '../../supervisor/core/tool-types.js';

// Every tool result leaves the gateway through normalizeResult; these pin its contract one
// behaviour at a time: caps with an explicit marker, the structuredContent mirror and its
// truncation receipt, redaction, non-text markers and isError.

const MARKER = '...[truncated by hermes-mcp-gateway]';
const SECRET = 'sk-proj-' + 'A1b2C3d4E5f6G7h8I9j0'.repeat(3);
const PRODUCT_CAP = defaultLimits().maxOutputChars;

function texts(result: NormalizedToolResult): string[] {
  return result.content.map((b) => {
    assert.equal(b.type, 'text', `expected only text blocks, got ${b.type}`);
    return b.text as string;
  });
}

function textChars(result: NormalizedToolResult): number {
  return texts(result).reduce((sum, t) => sum + t.length, 0);
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

describe('capText', () => {
  test('the marker is the documented string', () => {
    assert.equal(TRUNCATION_MARKER, MARKER);
  });

  test('text of exactly max characters is returned unchanged', () => {
    assert.deepEqual(capText('abcdefghij', 10), { text: 'abcdefghij', truncated: false });
  });

  test('longer text is cut to exactly max characters, head first, ending with the marker', () => {
    const text = 'h'.repeat(50) + 't'.repeat(1000);
    const out = capText(text, 100);
    assert.equal(out.truncated, true);
    assert.equal(out.text.length, 100);
    assert.equal(out.text, 'h'.repeat(50) + 't'.repeat(100 - 50 - MARKER.length) + MARKER);
  });

  test('is never longer than max, even when max is below the marker length', () => {
    for (const max of [0, 1, 10, MARKER.length - 1]) {
      const out = capText('x'.repeat(200), max);
      assert.equal(out.truncated, true);
      assert.ok(out.text.length <= max, `max ${max}: got ${out.text.length} characters`);
    }
  });

  test('does not split a surrogate pair at the cut', () => {
    // The cut falls right after the high surrogate of the emoji.
    const out = capText('😀' + 'x'.repeat(100), MARKER.length + 1);
    assert.ok(out.text.length <= MARKER.length + 1);
    assert.ok(!LONE_SURROGATE.test(out.text), JSON.stringify(out.text));
    assert.ok(out.text.endsWith(MARKER));
  });
});

describe('errorOutcome', () => {
  test('is an isError outcome with {error, message, ...details}', () => {
    assert.deepEqual(errorOutcome(ErrorCode.BUSY, 'try later', { retry_after_ms: 100 }), {
      isError: true,
      structured: { error: 'BUSY', message: 'try later', retry_after_ms: 100 },
    });
  });

  test('details cannot replace the stable error code or the message', () => {
    const out = errorOutcome(ErrorCode.UPSTREAM_FAILED, 'upstream said no', { error: 'SOMETHING_ELSE', message: 'other', status: 502 });
    assert.equal(out.structured?.error, 'UPSTREAM_FAILED');
    assert.equal(out.structured?.message, 'upstream said no');
    assert.equal(out.structured?.status, 502);
  });
});

describe('normalizeResult: text', () => {
  test('the product cap is 65,536 characters and text over it is cut to exactly that, with the marker', () => {
    assert.equal(PRODUCT_CAP, 65_536);
    const result = normalizeResult({ content: [{ type: 'text', text: 'y'.repeat(100_000) }] }, { maxChars: PRODUCT_CAP });
    const [text] = texts(result);
    assert.equal(result.content.length, 1);
    assert.equal(text!.length, PRODUCT_CAP);
    assert.ok(text!.endsWith(MARKER));
  });

  test('text within the cap is returned verbatim', () => {
    const result = normalizeResult({ content: [{ type: 'text', text: 'hello' }, { type: 'text', text: 'world' }] }, { maxChars: 10 });
    assert.deepEqual(texts(result), ['hello', 'world']);
  });

  test('several text blocks together never exceed the cap', () => {
    const result = normalizeResult(
      { content: [{ type: 'text', text: 'a'.repeat(40) }, { type: 'text', text: 'b'.repeat(100) }, { type: 'text', text: 'c'.repeat(100) }] },
      { maxChars: 50 },
    );
    assert.ok(textChars(result) <= 50, `got ${textChars(result)} characters: ${JSON.stringify(texts(result))}`);
  });

  test('dropping a later block still leaves the marker, even when an earlier block fills the cap exactly', () => {
    const result = normalizeResult({ content: [{ type: 'text', text: 'a'.repeat(50) }, { type: 'text', text: 'b'.repeat(100) }] }, { maxChars: 50 });
    const all = texts(result);
    assert.ok(textChars(result) <= 50);
    assert.ok(all.at(-1)!.endsWith(MARKER), JSON.stringify(all));
  });

  test('text gets what the structuredContent mirror leaves of the cap', () => {
    const structured = { k: 'v'.repeat(12) };
    const mirror = JSON.stringify(structured).length; // 20
    const result = normalizeResult({ structured, content: [{ type: 'text', text: 'z'.repeat(100) }] }, { maxChars: 60 });
    const [json, text] = texts(result);
    assert.equal(json!.length, mirror);
    assert.equal(text!.length, 60 - mirror);
    assert.ok(text!.endsWith(MARKER));
  });

  test('a secret in a text block is redacted', () => {
    const result = normalizeResult({ content: [{ type: 'text', text: `deploy key: ${SECRET}\nok` }] }, { maxChars: PRODUCT_CAP });
    const [text] = texts(result);
    assert.ok(!text!.includes(SECRET), text);
    assert.match(text!, /deploy key: .*\nok$/);
  });

  test('redaction happens before the cut, so a cut cannot leave a secret fragment too short to recognise', () => {
    // Capped first, the kept head would end in `sk-proj-A1b`, which no longer looks like a key.
    const prefix = 'x'.repeat(199) + ' ';
    const result = normalizeResult({ content: [{ type: 'text', text: prefix + SECRET }] }, { maxChars: prefix.length + 11 + MARKER.length });
    const [text] = texts(result);
    assert.ok(!text!.includes(SECRET.slice(0, 11)), text);
  });
});

describe('normalizeResult: structuredContent', () => {
  test('is mirrored as exactly one JSON text block that parses back to it', () => {
    const structured = { files: [{ name: 'SOUL.md', bytes: 3 }], total: 3, note: 'ünïcödé "quoted"' };
    const result = normalizeResult({ structured }, { maxChars: PRODUCT_CAP });
    assert.deepEqual(result.structuredContent, structured);
    assert.equal(result.content.length, 1);
    assert.deepEqual(JSON.parse(texts(result)[0]!), result.structuredContent);
  });

  test('a secret in a nested field is redacted in structuredContent and in its mirror', () => {
    const structured = { outer: { items: [{ note: `token is ${SECRET}`, keep: 'plain' }] } };
    const result = normalizeResult({ structured }, { maxChars: PRODUCT_CAP });
    assert.ok(!JSON.stringify(result).includes(SECRET));
    const items = (result.structuredContent?.outer as { items: Array<{ note: string; keep: string }> }).items;
    assert.match(items[0]!.note, /^token is \S+$/);
    assert.equal(items[0]!.keep, 'plain');
    assert.deepEqual(JSON.parse(texts(result)[0]!), result.structuredContent);
  });

  test('a file read is redacted once, in file-read mode: the normaliser does not redact it again as output', () => {
    const pat = 'ghp_' + 'ab1CD2ef3GH4ij5KL6mn7OP8qr9ST0uv6789';
    const file = `1|DATABASE_PASSWORD = "hunter2hunter2hunter2"\n2|token = "${pat}"`;
    const once = '1|DATABASE_PASSWORD = "hunter2hunter2hunter2"\n2|token = "«redacted:ghp_…»"';
    const outcome = fileReadOutcome({ content: file, total_lines: 2 });
    assert.equal(outcome.structured?.content, once);
    // Through the normaliser, inline and after the structured clone of the pool-thread hop.
    for (const o of [outcome, structuredClone(outcome)]) {
      const result = normalizeResult(o, { maxChars: PRODUCT_CAP });
      assert.deepEqual(result.structuredContent, { content: once, total_lines: 2 });
      assert.deepEqual(JSON.parse(texts(result)[0]!), result.structuredContent);
    }
    // The same text as a tool's output is redacted in the output mode: the assignment too (written
    // `NAME=value` as Hermes writes it, and masked again by the line-anchored config pass).
    const output = normalizeResult({ structured: { content: file } }, { maxChars: PRODUCT_CAP });
    assert.equal(output.structuredContent?.content, '1|DATABASE_PASSWORD="***"\n2|token = "ghp_ab...6789"');
  });

  test('the input structure is not modified by redaction', () => {
    const structured = { note: `token is ${SECRET}` };
    normalizeResult({ structured }, { maxChars: PRODUCT_CAP });
    assert.equal(structured.note, `token is ${SECRET}`);
  });

  test('structuredContent over the cap becomes a truncation receipt whose preview is the head of its JSON', () => {
    const structured = { rows: Array.from({ length: 200 }, (_, i) => ({ id: i, name: `row-${i}` })) };
    const json = JSON.stringify(structured);
    const maxChars = 1000;
    const result = normalizeResult({ structured }, { maxChars });
    const receipt = result.structuredContent as { truncated: boolean; original_chars: number; preview: string };
    assert.deepEqual(Object.keys(receipt).sort(), ['original_chars', 'preview', 'truncated']);
    assert.equal(receipt.truncated, true);
    assert.equal(receipt.original_chars, json.length);
    assert.ok(receipt.preview.endsWith(MARKER));
    const head = receipt.preview.slice(0, -MARKER.length);
    assert.ok(head.length > 0);
    assert.ok(json.startsWith(head));
  });

  test('the receipt mirror is valid JSON equal to the receipt and fits the cap', () => {
    const structured = { rows: Array.from({ length: 5000 }, (_, i) => ({ id: i })) };
    const result = normalizeResult({ structured }, { maxChars: 2000 });
    assert.equal(result.content.length, 1);
    const [mirror] = texts(result);
    assert.ok(mirror!.length <= 2000, `mirror is ${mirror!.length} characters`);
    assert.deepEqual(JSON.parse(mirror!), result.structuredContent);
  });

  test('the receipt fits the cap even when re-escaping doubles the preview (quotes and backslashes)', () => {
    // JSON text nested in a string: every `"` and `\` of its JSON is escaped again in the receipt.
    const structured = { output: JSON.stringify({ items: Array.from({ length: 20_000 }, (_, i) => ({ k: `v${i}` })) }), path: 'C:\\x\\y'.repeat(5000) };
    const result = normalizeResult({ structured }, { maxChars: PRODUCT_CAP });
    const [mirror] = texts(result);
    assert.equal((result.structuredContent as { truncated?: boolean }).truncated, true);
    assert.ok(mirror!.length <= PRODUCT_CAP, `mirror is ${mirror!.length} characters, cap ${PRODUCT_CAP}`);
    assert.deepEqual(JSON.parse(mirror!), result.structuredContent);
    assert.ok(mirror!.length > PRODUCT_CAP / 2, 'the preview should use most of the cap');
  });

  test('an oversized error outcome keeps its error code in the receipt', () => {
    const outcome = errorOutcome(ErrorCode.UPSTREAM_FAILED, 'upstream said no', { body: 'e'.repeat(5000) });
    const result = normalizeResult(outcome, { maxChars: 1000 });
    assert.equal(result.isError, true);
    assert.equal(result.structuredContent?.truncated, true);
    assert.equal(result.structuredContent?.error, 'UPSTREAM_FAILED');
    assert.deepEqual(JSON.parse(texts(result)[0]!), result.structuredContent);
  });

  test('an oversized success outcome with an `error` field gets no error code in its receipt', () => {
    const result = normalizeResult({ structured: { error: 'not a failure, just a field', body: 'e'.repeat(5000) } }, { maxChars: 1000 });
    assert.equal(result.isError, undefined);
    assert.equal(result.structuredContent?.truncated, true);
    assert.equal('error' in result.structuredContent!, false);
  });
});

describe('normalizeResult: non-text content', () => {
  const image: ContentBlock = { type: 'image', data: 'aW1hZ2U=', mimeType: 'image/png' };
  const audio: ContentBlock = { type: 'audio', data: 'YXVkaW8=', mimeType: 'audio/wav' };
  const resource: ContentBlock = { type: 'resource', resource: { uri: 'file:///etc/passwd', text: 'root:x:0:0' } };

  test('image, audio and resource blocks are replaced by text markers naming their type', () => {
    const result = normalizeResult({ content: [image, audio, resource] }, { maxChars: PRODUCT_CAP });
    assert.deepEqual(texts(result), [
      '[image content omitted by hermes-mcp-gateway]',
      '[audio content omitted by hermes-mcp-gateway]',
      '[resource content omitted by hermes-mcp-gateway]',
    ]);
    const raw = JSON.stringify(result);
    for (const leaked of ['aW1hZ2U=', 'YXVkaW8=', 'root:x:0:0', '/etc/passwd']) assert.ok(!raw.includes(leaked), leaked);
  });

  test('allowImages keeps image blocks and still replaces audio and resource blocks', () => {
    const result = normalizeResult({ content: [image, audio, resource] }, { maxChars: PRODUCT_CAP, allowImages: true });
    assert.deepEqual(result.content, [
      image,
      { type: 'text', text: '[audio content omitted by hermes-mcp-gateway]' },
      { type: 'text', text: '[resource content omitted by hermes-mcp-gateway]' },
    ]);
  });

  test('a result always has at least one content block', () => {
    assert.deepEqual(normalizeResult({}, { maxChars: PRODUCT_CAP }).content, [{ type: 'text', text: '' }]);
  });
});

describe('normalizeResult: isError', () => {
  test('isError is preserved on an error outcome', () => {
    const result = normalizeResult(errorOutcome(ErrorCode.MEMORY_NOT_CONFIGURED, 'no backend'), { maxChars: PRODUCT_CAP });
    assert.equal(result.isError, true);
    assert.equal(result.structuredContent?.error, 'MEMORY_NOT_CONFIGURED');
  });

  test('a successful outcome carries no isError', () => {
    const result = normalizeResult({ structured: { ok: true } }, { maxChars: PRODUCT_CAP });
    assert.equal('isError' in result, false);
  });
});
