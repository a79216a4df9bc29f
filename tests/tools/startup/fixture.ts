import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { after } from 'node:test';
import { ErrorCode, GatewayError } from '../../../shared/errors.js';
import { loadLimits, type Limits } from '../../../shared/limits.js';
import type { CallContext } from '../../../supervisor/core/tool-types.js';
import { loadConfig } from '../../../supervisor/platform/config.js';
import { tempDirs } from '../../helpers/temp.js';
import type { StartupConfig } from '../../../supervisor/tools/startup/read.js';

// The startup files' unit tests' fixtures: a fresh HERMES_HOME and project directory per case.

export const ctx: CallContext = { owner: { id: 'request:t', kind: 'request' }, signal: new AbortController().signal, callId: 't', era: 'modern', callNested: () => Promise.reject(new Error('nested calls are not part of this test')) };

export interface Fixture {
  home: string;
  project: string;
  config: StartupConfig;
}

/** A fresh HERMES_HOME + project dir; `files` maps relative paths (under home, or `project/`) to content. */
export type MakeFixture = (files?: Record<string, string | Buffer>, limits?: Partial<Limits>) => Fixture;

/**
 * The fixture maker of one test file, called at its top level: its directories are removed after
 * that file's tests (a hook of this module's own would belong to whichever file imported it first).
 */
export function fixtures(): MakeFixture {
  const temp = tempDirs();
  after(() => temp.removeAll());
  return (files = {}, limits = {}) => {
    const root = temp.make('startup-context-test-');
    const home = join(root, 'home');
    const project = join(root, 'project');
    fs.mkdirSync(home, { recursive: true });
    fs.mkdirSync(project, { recursive: true });
    for (const [rel, content] of Object.entries(files)) {
      const path = rel.startsWith('project/') ? join(project, rel.slice('project/'.length)) : join(home, rel);
      fs.mkdirSync(join(path, '..'), { recursive: true });
      fs.writeFileSync(path, content);
    }
    const config = loadConfig({ HERMES_HOME: home, HERMES_MCP_PROJECT_DIR: project }, { limits: loadLimits({}, limits) });
    return { home, project, config };
  };
}

export async function expectCode(promise: Promise<unknown>, code: ErrorCode): Promise<GatewayError> {
  try {
    await promise;
  } catch (e) {
    assert.ok(e instanceof GatewayError, `expected GatewayError, got ${String(e)}`);
    assert.equal(e.code, code, e.message);
    return e;
  }
  assert.fail(`expected ${code}, but the call succeeded`);
}

export const ALL = {
  'project/.hermes.md': '# Project\nuse tabs\n',
  'SOUL.md': 'You are Hermes.\n',
  'memories/MEMORY.md': 'likes tea\n§\nworks on gateway\n',
  'memories/USER.md': 'Name: Ada — ünïcödé\n',
};
