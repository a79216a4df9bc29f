import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CallContext } from '../../../supervisor/core/tool-types.js';
import { loadConfig } from '../../../supervisor/platform/config.js';
import type { LspSuccess, LspWorkerHost } from '../../../supervisor/tools/lsp/host.js';
import type { LspToolDeps } from '../../../supervisor/tools/lsp/query.js';
import type { TempDirs } from '../../helpers/temp.js';

// The LSP tools' unit tests' world: a project under HERMES_MCP_ROOTS (trusted), a stand-in
// `typescript-language-server` program on PATH, and a stand-in worker host that records each
// query and answers with `result`.

export const ctx: CallContext = { owner: { id: 'request:t', kind: 'request' }, signal: new AbortController().signal, callId: 't', era: 'modern', callNested: () => Promise.reject(new Error('no nested calls here')) };

export interface StandIn {
  deps: LspToolDeps;
  /** The project root (trusted, with a tsconfig.json) and its file src/a.ts. */
  project: string;
  file: string;
  bin: string;
  /** The query bodies the host was sent. */
  queries: Array<Record<string, unknown>>;
  answer(next: Omit<LspSuccess, 'type' | 'id' | 'ok'>): void;
}

export function lspStandIn(temp: TempDirs, hostExtra: Partial<Pick<LspWorkerHost, 'running' | 'workerPid' | 'starts' | 'lastFailure'>> = {}): StandIn {
  const base = temp.make('hmcp-lsp-unit-');
  const project = join(base, 'project');
  const bin = join(base, 'bin');
  mkdirSync(join(project, 'src'), { recursive: true });
  mkdirSync(bin);
  writeFileSync(join(project, 'tsconfig.json'), '{}');
  const file = join(project, 'src', 'a.ts');
  writeFileSync(file, 'export const a = 1;\n');
  writeFileSync(join(bin, 'typescript-language-server'), '#!/bin/sh\n');
  chmodSync(join(bin, 'typescript-language-server'), 0o755);
  const config = loadConfig({ HERMES_HOME: join(base, 'home'), HERMES_MCP_ROOTS: project, HERMES_MCP_LSP_TRUSTED_ROOTS: project, PATH: bin });
  const queries: Array<Record<string, unknown>> = [];
  let next: Omit<LspSuccess, 'type' | 'id' | 'ok'> = { result: null };
  const host = {
    running: [],
    workerPid: undefined,
    starts: 0,
    ...hostExtra,
    async query(body: Record<string, unknown>) {
      queries.push(body);
      return { type: 'answer', id: 'q', ok: true, ...next };
    },
  } as unknown as LspWorkerHost;
  return { deps: { config, host, childEnv: { HOME: '/home/x' } }, project, file, bin, queries, answer: (a) => (next = a) };
}
