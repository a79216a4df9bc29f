import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DOCUMENTS_0_19 } from '../../../../../supervisor/tools/files/read/extract/render.js';
import readExtractTask from '../../../../../supervisor/tools/files/read/extract/task.js';

const options = { ...DOCUMENTS_0_19, displayPath: 'nb.ipynb' };

test('a rendering comes back as text; the bytes may be a view into a larger buffer', async () => {
  const doc = Buffer.from(JSON.stringify({ cells: [{ cell_type: 'markdown', source: '# hi' }] }));
  const padded = new Uint8Array(doc.length + 20);
  padded.set(doc, 10);
  const view = padded.subarray(10, 10 + doc.length);
  assert.deepEqual(await readExtractTask({ path: 'nb.ipynb', bytes: view, options }), { ok: true, text: '# ── Markdown cell 1 ──\n# hi\n' });
});

test('a document that does not render answers with the reason, not a throw', async () => {
  assert.deepEqual(await readExtractTask({ path: 'nb.ipynb', bytes: new TextEncoder().encode('{"cells": []}'), options }), { ok: false, message: 'Notebook contains no cells' });
  assert.deepEqual(await readExtractTask({ path: 'a.txt', bytes: new Uint8Array(0), options }), { ok: false, message: "Unsupported document type: 'a.txt'" });
});
