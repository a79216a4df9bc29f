import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { ErrorCode } from '../../../shared/errors.js';
import { loadConfig } from '../../../supervisor/platform/config.js';
import { HermesCaller } from '../../../supervisor/platform/hermes/call.js';
import { locateHermes } from '../../../supervisor/platform/hermes/locate.js';
import { createWorkerRuntime } from '../../../supervisor/platform/spawning/worker-runtime.js';
import { hermes } from '../../helpers/hermes.js';
import { tempDirs } from '../../helpers/temp.js';
import { Cases, call, ctx, expectCode } from './fixture.js';

// read_file handing a PDF, RTF or OpenDocument file to the real pinned Hermes' own extractor
// (tools/read_extract.py extract_document_bytes) in a Hermes call worker: the newest pin renders it,
// the oldest has no such extractor and the read says so; a document too large for the worker's
// transport is refused before anything starts.

const cases = new Cases();
const temp = tempDirs();
after(() => {
  cases.cleanup();
  temp.removeAll();
});

async function hermesCaller(): Promise<HermesCaller> {
  const home = temp.make('hmcp-read-documents-');
  mkdirSync(join(home, 'state'), { mode: 0o700 });
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HERMES_HOME: home, HERMES_MCP_ROOTS: home, HERMES_MCP_STATE_DIR: join(home, 'state'), HERMES_AGENT_PYTHON: hermes().python };
  const config = loadConfig(env, { inheritedEnvironment: { PATH: env.PATH } });
  return new HermesCaller(createWorkerRuntime(config, env), await locateHermes(config));
}

const RTF = '{\\rtf1\\ansi{\\fonttbl{\\f0 Helvetica;}}\\f0 Hello {\\b bold} world.\\par\\par Second line.\\par}';

test("an RTF file through Hermes' own extractor: Markdown where the pinned Hermes has it, what is missing where it does not", async () => {
  // The rules of the newest Hermes the gateway knows, whichever Hermes is there to call.
  const c = cases.make({ hermesCaller: await hermesCaller() });
  c.file('notes.rtf', RTF);
  if (hermes().pin === 'newest') {
    const r = await call(c.read, { path: 'notes.rtf' });
    assert.deepEqual(r, { content: '1|Hello **bold** world.\n2|\n3|Second line.', total_lines: 3, file_size: RTF.length, truncated: false, extracted_document: true });
    c.file('broken.pdf', '%PDF-1.4\nnot really\n');
    const e = await expectCode(c.read.handler({ path: 'broken.pdf' }, ctx), ErrorCode.FILE_EXTRACTION_FAILED);
    assert.match(e.message, /^Cannot read 'broken\.pdf' \(\.pdf\): document extraction failed — \w+Error: .+\. Use terminal utilities to inspect or convert the file\.$/);
  } else {
    const e = await expectCode(c.read.handler({ path: 'notes.rtf' }, ctx), ErrorCode.HERMES_CALL_UNSUPPORTED);
    assert.match(e.message, /^Cannot read 'notes\.rtf' \(\.rtf\): rendering this document needs Hermes Agent's document extractor \(tools\/read_extract\.py extract_document_bytes, Hermes 0\.22 and later\), which the Hermes Agent found does not have \(/);
  }
});

test("a document larger than the workers' transport carries is refused before Hermes is started", async () => {
  const c = cases.make({ hermesCaller: await hermesCaller(), workerTransportMaxBytes: 4096 });
  c.file('big.rtf', RTF + ' '.repeat(20_000));
  const e = await expectCode(c.read.handler({ path: 'big.rtf' }, ctx), ErrorCode.FILE_TOO_LARGE);
  assert.match(e.message, /^Cannot read 'big\.rtf' \(\.rtf\): the document is 20,\d{3} bytes, more than the \d[\d,]* bytes the gateway hands to Hermes' document extractor \(HERMES_MCP_WORKER_TRANSPORT_MAX_BYTES\)\./);
});
