import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import { dirname, join } from 'node:path';
import { ErrorCode, GatewayError } from '../../../shared/errors.js';
import { defaultLimits } from '../../../shared/limits.js';
import type { HermesCaller } from '../../../supervisor/platform/hermes/call.js';
import { HermesRelease } from '../../../supervisor/platform/hermes/release.js';
import type { FileAccessMode } from '../../../supervisor/platform/roots.js';
import { redactOutcome } from '../../../supervisor/core/result.js';
import type { CallContext, ToolDefinition, ToolOutcome } from '../../../supervisor/core/tool-types.js';
import { fileTools } from '../../../supervisor/tools/files/index.js';
import { FileStates } from '../../../supervisor/tools/files/state/index.js';

// Shared fixture for the native file-tool tests: a throw-away HERMES_HOME + project directory per
// case, the four tools bound to them, and helpers to call handlers and assert error codes. By default
// the tools are confined (HERMES_MCP_FILE_ACCESS=roots) to the case directory, which holds both the
// home and the project; `access: 'hermes'` gives Hermes' unconfined semantics (for its deny lists
// outside any root: /etc, /dev, /proc).

export const ctx: CallContext = { owner: { id: 'request:t', kind: 'request' }, signal: new AbortController().signal, callId: 't', era: 'modern', callNested: () => Promise.reject(new Error('nested calls are not part of this test')) };

export interface Case {
  root: string;
  home: string;
  proj: string;
  read: ToolDefinition;
  write: ToolDefinition;
  patch: ToolDefinition;
  search: ToolDefinition;
  /** The tools' per-task file states. */
  fileStates: FileStates;
  /** Owner ids cwdFor was asked about. */
  owners: string[];
  /** Writes a file under the project (`~/…` = under HERMES_HOME), creating parents. Returns its path. */
  file(rel: string, content: string | Buffer): string;
  p(rel: string): string;
  text(rel: string): string;
}

export class Cases {
  readonly base = fs.mkdtempSync(join(os.tmpdir(), 'native-files-'));
  private n = 0;

  /**
   * `hermes`: the Hermes version the tools follow, as HERMES_MCP_HERMES_VERSION states it (a test
   * of 0.19's behaviour passes '0.19.0'); the newest the gateway knows when absent (as in production
   * without a Hermes installed); `guardOff`: HERMES_DISABLE_FILE_STATE_GUARD=1.
   */
  make(
    opts: {
      homeRel?: string;
      access?: FileAccessMode;
      roots?: string[];
      cwd?: () => string;
      readFileScanMaxBytes?: number;
      readFileInlineMaxBytes?: number;
      maxOutputChars?: number;
      hermes?: string;
      /** Calls of a real Hermes' own functions (read_file's document extractor); none by default. */
      hermesCaller?: HermesCaller;
      workerTransportMaxBytes?: number;
      /** search_files' walk budget (`searchFilesMaxEntries`); the default limit when absent. */
      searchFilesMaxEntries?: number;
      /** The largest Python/TOML text write_file/patch syntax-check (`writeLintMaxBytes`). */
      writeLintMaxBytes?: number;
      guardOff?: boolean;
    } = {},
  ): Case {
    const root = join(this.base, `case-${++this.n}`);
    const home = join(root, opts.homeRel ?? 'home');
    const proj = join(root, 'proj');
    fs.mkdirSync(home, { recursive: true });
    fs.mkdirSync(proj, { recursive: true });
    const owners: string[] = [];
    const release = new HermesRelease(opts.hermes);
    const limits = defaultLimits();
    const fileStates = new FileStates({
      enabled: opts.guardOff !== true,
      guard: release.has('writeFileReadBeforeOverwrite'),
      maxPaths: limits.fileStatePathsPerOwner,
      ledgerTtlMs: limits.fileStateLedgerTtlSeconds * 1000,
      maxLedgers: limits.fileStateMaxLedgers,
    });
    const [read, write, patch, search] = fileTools({
      release,
      fileStates,
      hermesHome: home,
      cwdFor: (id) => {
        owners.push(id);
        return opts.cwd?.() ?? proj;
      },
      access: { mode: opts.access ?? 'roots', roots: opts.roots ?? [root] },
      readFileScanMaxBytes: opts.readFileScanMaxBytes ?? defaultLimits().readFileScanMaxBytes,
      readFileInlineMaxBytes: opts.readFileInlineMaxBytes ?? defaultLimits().readFileInlineMaxBytes,
      ...(opts.maxOutputChars === undefined ? {} : { maxOutputChars: opts.maxOutputChars }),
      ...(opts.hermesCaller ? { hermes: opts.hermesCaller } : {}),
      ...(opts.workerTransportMaxBytes === undefined ? {} : { workerTransportMaxBytes: opts.workerTransportMaxBytes }),
      ...(opts.searchFilesMaxEntries === undefined ? {} : { searchFilesMaxEntries: opts.searchFilesMaxEntries }),
      ...(opts.writeLintMaxBytes === undefined ? {} : { writeLintMaxBytes: opts.writeLintMaxBytes }),
    });
    const p = (rel: string): string => (rel.startsWith('~/') ? join(home, rel.slice(2)) : join(proj, rel));
    return {
      root,
      home,
      proj,
      read: read!,
      write: write!,
      patch: patch!,
      search: search!,
      fileStates,
      owners,
      p,
      file(rel, content) {
        const path = p(rel);
        fs.mkdirSync(dirname(path), { recursive: true });
        fs.writeFileSync(path, content);
        return path;
      },
      text: (rel) => fs.readFileSync(p(rel), 'utf8'),
    };
  }

  cleanup(): void {
    fs.rmSync(this.base, { recursive: true, force: true });
  }
}

/** The handler's outcome as the pipeline hands it on: redacted in the tool's mode (core/pipeline.ts runTool). */
export async function outcome(tool: ToolDefinition, args: Record<string, unknown>, c: CallContext = ctx): Promise<ToolOutcome> {
  return redactOutcome(tool.redaction, await tool.handler(args, c));
}

export async function call(tool: ToolDefinition, args: Record<string, unknown>, c: CallContext = ctx): Promise<Record<string, unknown>> {
  const result = await outcome(tool, args, c);
  assert.ok(result.structured, 'handler returned structured content');
  return result.structured as Record<string, unknown>;
}

/** A result field the test reads as text, checked to be a string. */
export function text(value: unknown): string {
  assert.equal(typeof value, 'string', `expected a string, got ${JSON.stringify(value)}`);
  return value as string;
}

export async function expectCode(promise: Promise<unknown>, code: ErrorCode): Promise<GatewayError> {
  try {
    await promise;
  } catch (e) {
    assert.ok(e instanceof GatewayError, `expected GatewayError ${code}, got ${String(e)}`);
    assert.equal(e.code, code, `expected ${code}, got ${e.code}: ${e.message}`);
    return e;
  }
  assert.fail(`expected GatewayError ${code}, but the call succeeded`);
}
