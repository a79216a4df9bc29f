// Code-intelligence benchmark, in one run: the warm cost the gateway adds in front of a language
// server and a graph upstream, each measured against talking to the very same kind of server directly.
//
//   lsp_document_symbols via tool_call (real gateway bin, modern era)  vs  textDocument/documentSymbol
//     sent straight to typescript-language-server over its own stdio (vscode-languageserver-protocol)
//   inspect_code_graph via tool_call  vs  tools/call of @ttsc/graph's tool through an MCP SDK client
//
// Both sides are warmed first (the language server has loaded its project, the graph upstream has
// built its index), so what is left is the gateway's own path: HTTP, MCP, validation, the root and
// trust checks, the worker frame hop, document sync, result shaping and redaction.
// Target printed: warm overhead (gateway p50 - direct p50) <= 5 ms for each. Everything this starts
// is stopped by pid before it exits.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { createProtocolConnection, DocumentSymbolRequest, InitializedNotification, InitializeRequest, StreamMessageReader, StreamMessageWriter, DidOpenTextDocumentNotification } from 'vscode-languageserver-protocol/node';
import { packageRoot } from '../shared/package-root.js';
import { launchGateway, nodeFlags, started } from './launch.js';
import { typescriptProject } from '../tests/helpers/graph.js';
import { env, pct, row, runBench, sample, stopChild, toolCall, toolCallResult, verdict } from './measure.js';

const WARMUP = env('BENCH_CODE_WARMUP', 20);
const ROUNDS = env('BENCH_CODE_ROUNDS', 200);
const OVERHEAD_TARGET_MS = 5;

const root = packageRoot();
const bin = join(root, 'node_modules', '.bin');
const TTSC_GRAPH_BINARY = join(root, 'node_modules', '@ttsc', 'linux-x64', 'bin', 'ttscgraph');
const GRAPH_COMMAND = join(bin, 'ttsc-graph');
const GRAPH_TOOL = 'inspect_typescript_graph';
const GRAPH_ARGS = { question: 'where is shout defined', draft: 'lookup', review: 'one symbol by name', request: { type: 'lookup', query: 'shout' } };

const dirs: string[] = [];
const children = new Set<ChildProcess>();
let graphClient: Client | undefined;

let cleaned = false;
async function cleanup(): Promise<void> {
  if (cleaned) return;
  cleaned = true;
  await graphClient?.close().catch(() => {});
  await Promise.all([...children, ...started].map((c) => stopChild(c)));
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}

/** A small TypeScript project (the graph tests' fixture), the same one both sides look at. */
function fixtureProject(): { dir: string; file: string } {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'hmcp-bench-code-')));
  dirs.push(dir);
  typescriptProject(dir);
  return { dir, file: join(dir, 'src', 'index.ts') };
}

/** typescript-language-server on its own stdio, initialized, with `file` open. */
async function directLanguageServer(dir: string, file: string) {
  const child = spawn(join(bin, 'typescript-language-server'), ['--stdio'], { cwd: dir, stdio: ['pipe', 'pipe', 'ignore'] });
  children.add(child);
  const connection = createProtocolConnection(new StreamMessageReader(child.stdout!), new StreamMessageWriter(child.stdin!));
  // The server-to-client requests servers block on: configuration gets one null per item, the rest null.
  connection.onRequest('workspace/configuration', (params: { items?: unknown[] }) => (params.items ?? []).map(() => null));
  for (const method of ['window/workDoneProgress/create', 'client/registerCapability']) connection.onRequest(method, () => null);
  connection.listen();
  await connection.sendRequest(InitializeRequest.type, {
    processId: process.pid,
    rootUri: pathToFileURL(dir).href,
    workspaceFolders: [{ uri: pathToFileURL(dir).href, name: 'bench' }],
    capabilities: { textDocument: { documentSymbol: { hierarchicalDocumentSymbolSupport: true } } },
  });
  await connection.sendNotification(InitializedNotification.type, {});
  const uri = pathToFileURL(file).href;
  await connection.sendNotification(DidOpenTextDocumentNotification.type, { textDocument: { uri, languageId: 'typescript', version: 1, text: readFileSync(file, 'utf8') } });
  return {
    symbols: async () => {
      const result = await connection.sendRequest(DocumentSymbolRequest.type, { textDocument: { uri } });
      if (!Array.isArray(result) || result.length === 0) throw new Error(`direct documentSymbol: ${JSON.stringify(result)}`);
    },
    close: () => connection.dispose(),
  };
}

async function main(): Promise<void> {
  const t0 = performance.now();
  const { dir, file } = fixtureProject();
  const home = mkdtempSync(join(tmpdir(), 'hmcp-bench-code-home-'));
  dirs.push(home);
  writeFileSync(join(home, 'SOUL.md'), '# Soul\n');
  const gw = await launchGateway(home, {
    HERMES_MCP_ROOTS: dir,
    HERMES_MCP_LSP_TRUSTED_ROOTS: dir,
    HERMES_MCP_STATE_DIR: join(home, '.state'),
    HERMES_MCP_GRAPH_COMMAND: GRAPH_COMMAND,
    HERMES_MCP_GRAPH_TOOL: GRAPH_TOOL,
    TTSC_GRAPH_BINARY,
    PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`,
  });
  const gwUrl = `http://127.0.0.1:${gw.port}/mcp`;

  const direct = await directLanguageServer(dir, file);
  graphClient = new Client({ name: 'bench-code-intel', version: '1' });
  await graphClient.connect(new StdioClientTransport({ command: GRAPH_COMMAND, args: [], cwd: dir, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, TTSC_GRAPH_BINARY } }));
  const client = graphClient;

  const directSymbols = await sample(WARMUP, ROUNDS, direct.symbols);
  const gatewaySymbols = await sample(WARMUP, ROUNDS, async () => {
    const r = await toolCall(gwUrl, 'lsp_document_symbols', { path: file });
    if (JSON.stringify(r).indexOf('LoudGreeter') < 0) throw new Error(`lsp_document_symbols: ${JSON.stringify(r).slice(0, 300)}`);
  });
  const directGraph = await sample(WARMUP, ROUNDS, async () => {
    const r = await client.callTool({ name: GRAPH_TOOL, arguments: GRAPH_ARGS });
    if (r.isError) throw new Error(`direct graph call: ${JSON.stringify(r).slice(0, 300)}`);
  });
  const gatewayGraph = await sample(WARMUP, ROUNDS, async () => {
    // The upstream answers in a text block (Samchon Graph in structuredContent); either passes through.
    const r = await toolCallResult(gwUrl, 'inspect_code_graph', { cwd: dir, ...GRAPH_ARGS });
    if (JSON.stringify(r).indexOf('src/index.ts#shout') < 0) throw new Error(`inspect_code_graph: ${JSON.stringify(r).slice(0, 300)}`);
  });
  direct.close();

  console.log(`bench/code-intel: Node ${process.version} ${nodeFlags.join(' ')}, gateway pid ${gw.child.pid}, sequential calls, warm servers`);
  console.log(row('documentSymbol, direct to typescript-language-server', directSymbols));
  console.log(row('lsp_document_symbols via tool_call', gatewaySymbols));
  console.log(row(`${GRAPH_TOOL}, direct MCP client`, directGraph));
  console.log(row('inspect_code_graph via tool_call', gatewayGraph));
  for (const [label, via, to] of [
    ['lsp_document_symbols', gatewaySymbols, directSymbols],
    ['inspect_code_graph', gatewayGraph, directGraph],
  ] as const) {
    const overhead = pct(via, 50) - pct(to, 50);
    console.log(`${label} warm overhead p50 ${overhead.toFixed(2)} ms vs ${OVERHEAD_TARGET_MS} ms: ${verdict(overhead <= OVERHEAD_TARGET_MS)}`);
  }
  console.log(`total run ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}

runBench(main, cleanup);
