import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { parse } from 'yaml';
import { gte } from '@renovatebot/pep440';
import { defaultLimits } from '../../../shared/limits.js';
import { packageRoot } from '../../../shared/package-root.js';
import { hermes, hermesEnv, makeHermesHome, runDriver } from '../../helpers/hermes.js';
import { markedBlocks } from '../../helpers/readme.js';
import { tempDirs } from '../../helpers/temp.js';
import { waitFor } from '../../helpers/wait.js';
import { alive, pathWithoutServers, PY, SERVER_BIN_DIR, TS, writePythonProject, writeTypeScriptProject } from './fixtures.js';

// Real Hermes Agent (the pinned venv) on hermes-mcp-lsp: a HERMES_HOME whose mcp_servers entry is
// docs/tools/lsp.md's block, Hermes' own MCP client (discover_mcp_tools: tools/mcp_tool.py in 0.19.0,
// tools/mcp_tool_discovery.py in 0.22.2) starting the built bin, and every call made as Hermes'
// agent loop makes it (model_tools.handle_function_call, then the agent's per-result budget),
// through tests/hermes/drivers/lsp_mcp_client.py. Real servers: typescript-language-server and pyright.
// Where the two Hermes versions differ (0.22.2's tool search offers MCP tools through its bridge,
// its result budget is 50,000 characters, its circuit breaker words its pause differently), the
// expectation says which version it is for.

interface Call {
  tool: string;
  /** What Hermes' handler returned (a JSON string). */
  result: string;
  /** What the model would be given after Hermes' result budget. */
  delivered: string;
}
interface Session {
  registered: string[];
  definitions: Record<string, { description: string; parameters: Record<string, unknown> }>;
  /** What get_tool_definitions offers the model after Hermes' tool search assembly (where it has one). */
  assembled: string[];
  listed: Record<string, Array<{ name: string; description: string; inputSchema: Record<string, unknown> }>>;
  status: Array<{ name: string; connected: boolean; tools: number }>;
  calls: Call[];
  threshold: number;
  /** The Hermes process's descendants just before its shutdown_mcp_servers(). */
  processes: Array<{ pid: number; cmdline: string }>;
}

const dirs = tempDirs();
const BIN = join(packageRoot(), 'dist', 'bin', 'lsp.js');
const TOOLS = ['lsp_definition', 'lsp_diagnostics', 'lsp_document_symbols', 'lsp_hover', 'lsp_references', 'lsp_status'];
const hermesName = (tool: string) => `mcp__lsp__${tool}`;
/**
 * Hermes 0.22.2 (the first version these tests run that has them; 0.19.0 has none): tool search
 * deferring these six MCP tools (tools/tool_search.py: they reach the model through
 * tool_search/tool_describe/tool_call; 0.19.0's automatic mode leaves so few eager), a
 * 50,000-character MCP result budget (tools/budget_config.py), the circuit breaker's new wording.
 */
const NEWER = gte(hermes().version, '0.22.2');
let root: string;
let work: string;
let ts: { math: string; main: string };
let py: { lib: string; main: string };
let big: string;

/** docs/tools/lsp.md's mcp_servers block with its placeholders (checkout, project root, the user's npm bin) made real. */
function readmeEntry(projectRoot: string): { command: string; args: string[]; env: Record<string, string> } {
  const yaml = markedBlocks('hermes-mcp-lsp', 'docs/tools/lsp.md')[0]!
    .replaceAll('/path/to/hermes-mcp-gateway', packageRoot())
    .replaceAll('/home/you/work', projectRoot)
    .replaceAll('/home/you/.npm-global/bin', [SERVER_BIN_DIR, dirname(process.execPath)].join(delimiter));
  const entry = (parse(yaml) as { mcp_servers: { lsp: { command: string; args: string[]; env: Record<string, string> } } }).mcp_servers.lsp;
  assert.equal(entry.command, BIN, 'the docs name the built bin');
  return entry;
}

/** A Hermes session (one Hermes process) on a home whose only mcp_servers entry is `entry`. */
async function hermesSession(name: string, entry: object, calls: Array<{ tool: string; args?: Record<string, unknown> }>): Promise<Session> {
  const home = makeHermesHome(join(root, name), { config: { mcp_servers: { lsp: entry } } });
  // Hermes' OSV preflight only queries for npx/uvx commands; pointed at loopback all the same.
  return runDriver<Session>('lsp_mcp_client.py', { calls }, hermesEnv(home, { OSV_ENDPOINT: 'http://127.0.0.1:9/v1/query' }), 180_000);
}

/** Hermes' shutdown_mcp_servers closed the bin's stdin: the bin, its worker and its servers end (`servers`: how many ran). */
async function allEnded(session: Session, servers: number): Promise<void> {
  const bins = session.processes.filter((p) => p.cmdline.includes(BIN));
  assert.ok(bins.length >= 1, `Hermes started the bin: ${JSON.stringify(session.processes)}`);
  const lsps = session.processes.filter((p) => /typescript-language-server|pyright-langserver/.test(p.cmdline));
  assert.equal(lsps.length, servers, JSON.stringify(session.processes));
  await waitFor(() => session.processes.every((p) => !alive(p.pid)), 15_000, `the processes Hermes started to end: ${JSON.stringify(session.processes)}`);
}

const parsed = (s: string) => JSON.parse(s) as { result?: Record<string, unknown>; error?: string; [k: string]: unknown };
/** The stable error of a call as Hermes hands it on: `{"error": "<the bin's JSON error text>"}`. */
function errorOf(call: Call): { error: string; message: string } {
  const outer = parsed(call.delivered);
  assert.equal(typeof outer.error, 'string', call.delivered);
  return JSON.parse(outer.error!) as { error: string; message: string };
}
/** A success as the model gets it: `{"result": <the structured answer>}`, the answer once. */
function resultOf(call: Call): Record<string, unknown> {
  const outer = parsed(call.delivered);
  assert.deepEqual(Object.keys(outer), ['result'], `one copy of the answer: ${call.delivered.slice(0, 300)}`);
  assert.equal(typeof outer.result, 'object', call.delivered.slice(0, 300));
  return outer.result!;
}

before(() => {
  root = realpathSync(dirs.make('hmcp-lsp-hermes-'));
  work = join(root, 'work');
  mkdirSync(work);
  ts = writeTypeScriptProject(work);
  py = writePythonProject(work);
  // A file whose symbol list is far over the default output cap (maxOutputChars).
  big = join(work, 'ts', 'src', 'big.ts');
  writeFileSync(join(root, 'outside.ts'), 'export const outside = 1;\n');
  writeFileSync(big, Array.from({ length: 3000 }, (_, i) => `export function generatedFunctionNumber${i}(): number { return ${i}; }\n`).join(''));
});

after(() => dirs.removeAll());

test("Hermes' MCP client on the documented entry: the six tools under Hermes' names, both real servers, the truncation receipt, a refused path, and nothing left running", async () => {
  const session = await hermesSession('home-readme', readmeEntry(work), [
    { tool: hermesName('lsp_status') },
    { tool: hermesName('lsp_diagnostics'), args: { path: ts.main } },
    { tool: hermesName('lsp_document_symbols'), args: { path: ts.math } },
    { tool: hermesName('lsp_diagnostics'), args: { path: py.main } },
    { tool: hermesName('lsp_document_symbols'), args: { path: py.lib } },
    { tool: hermesName('lsp_document_symbols'), args: { path: big } },
    { tool: hermesName('lsp_diagnostics'), args: { path: join(work, '..', 'outside.ts') } }, // a file that exists, outside the root
    { tool: hermesName('lsp_status') },
  ]);
  assert.deepEqual(session.registered, TOOLS.map(hermesName), 'exactly the six tools, no resource/prompt utilities');
  assert.deepEqual(session.status.map((s) => [s.name, s.connected, s.tools]), [['lsp', true, 6]]);
  // What the model is offered is our listing unchanged: Hermes' schema normalisation has nothing to
  // repair (0.22.2 only spells out an empty `required` where a schema has none, tools/mcp_tool_schema.py
  // _repair_object_shape: lsp_status's).
  for (const tool of session.listed.lsp!) {
    const parameters = NEWER ? { required: [], ...tool.inputSchema } : tool.inputSchema;
    assert.deepEqual(session.definitions[hermesName(tool.name)], { description: tool.description, parameters }, tool.name);
  }
  // 0.22.2 defers every MCP tool behind its tool search bridge (the model finds them there); 0.19.0 offers these six directly.
  assert.deepEqual(session.assembled, NEWER ? ['tool_call', 'tool_describe', 'tool_search'] : TOOLS.map(hermesName));

  const [status, tsDiagnostics, tsSymbols, pyDiagnostics, pySymbols, oversized, outside, statusAfter] = session.calls as [Call, Call, Call, Call, Call, Call, Call, Call];
  const servers = resultOf(status).servers as Array<{ name: string; installed: boolean }>;
  assert.deepEqual(servers.map((s) => [s.name, s.installed]), [['typescript', true], ['pyright', true]]);

  const errorLines = (call: Call) => (resultOf(call).diagnostics as Array<{ severity: string; line: number }>).filter((d) => d.severity === 'error').map((d) => d.line);
  assert.deepEqual(errorLines(tsDiagnostics), [TS.errorLine]);
  assert.deepEqual(errorLines(pyDiagnostics), [PY.errorLine]);
  const names = (call: Call) => (resultOf(call).symbols as Array<{ name: string }>).map((s) => s.name);
  assert.deepEqual(names(tsSymbols), ['add', 'Counter']);
  assert.deepEqual(names(pySymbols), ['greet', 'Greeter']);

  // The receipt reaches the model whole, as JSON, under Hermes' own result budget (not persisted or
  // cut by Hermes): 100,000 characters in 0.19.0, 50,000 in 0.22.2, and the bin caps its results
  // under both (lspStdioMaxOutputChars).
  assert.equal(session.threshold, NEWER ? 50_000 : 100_000);
  assert.ok(oversized.delivered.length <= session.threshold, `${oversized.delivered.length} chars > Hermes' ${session.threshold}`);
  assert.ok(oversized.delivered.length <= defaultLimits().lspStdioMaxOutputChars + 20, `${oversized.delivered.length} chars: the receipt within lspStdioMaxOutputChars, and Hermes' {"result": ...} around it`);
  assert.equal(oversized.delivered, oversized.result, "Hermes' result budget left it alone");
  const receipt = resultOf(oversized);
  assert.equal(receipt.truncated, true);
  assert.ok((receipt.original_chars as number) > 65536);
  assert.match(receipt.preview as string, /generatedFunctionNumber0/);

  assert.equal(errorOf(outside).error, 'PATH_OUTSIDE_ROOTS');
  assert.match(errorOf(outside).message, /outside the allowed roots/);
  const running = (resultOf(statusAfter).servers as Array<{ name: string; running: unknown[] }>).map((s) => [s.name, s.running.length]);
  assert.deepEqual(running, [['typescript', 1], ['pyright', 1]], 'the refusal did not disturb the session');

  await allEnded(session, 2);
});

test('an untrusted workspace and a missing language server reach Hermes as tool errors with the stable code, and lsp_status says which server is missing', async () => {
  const untrusted = join(root, 'untrusted');
  mkdirSync(untrusted);
  const loose = join(untrusted, 'loose.py');
  writeFileSync(loose, 'x: int = 1\n');
  const entry = readmeEntry(work);
  // The documented entry with a second, untrusted root, and a PATH where no language server is installed.
  entry.env.HERMES_MCP_ROOTS = [work, untrusted].join(delimiter);
  entry.env.PATH = pathWithoutServers();
  const session = await hermesSession('home-missing', entry, [
    { tool: hermesName('lsp_diagnostics'), args: { path: loose } },
    { tool: hermesName('lsp_status') },
    { tool: hermesName('lsp_diagnostics'), args: { path: ts.main } },
    { tool: hermesName('lsp_status') },
  ]);
  const [untrustedCall, status, missing, statusAfter] = session.calls as [Call, Call, Call, Call];
  assert.equal(errorOf(untrustedCall).error, 'LSP_WORKSPACE_UNTRUSTED');
  const servers = resultOf(status).servers as Array<{ name: string; installed: boolean; install: string }>;
  assert.deepEqual(servers.map((s) => [s.name, s.installed]), [['typescript', false], ['pyright', false]]);
  const { error, message } = errorOf(missing);
  assert.equal(error, 'LSP_SERVER_NOT_INSTALLED');
  assert.ok(message.includes(servers[0]!.install), message);
  assert.match(message, /env PATH of its mcp_servers entry/, 'the way out for a Hermes user');
  // Hermes' client is still connected and answering after both refusals.
  assert.deepEqual(resultOf(statusAfter).servers, resultOf(status).servers);
  await allEnded(session, 0);
});

test("Hermes counts three refusals in a row as a failing server and answers the next call itself for 60 s (recorded in docs/tools/lsp.md)", async () => {
  const outside = join(root, 'outside.ts');
  const session = await hermesSession('home-breaker', readmeEntry(work), [
    { tool: hermesName('lsp_diagnostics'), args: { path: outside } },
    { tool: hermesName('lsp_diagnostics'), args: { path: outside } },
    { tool: hermesName('lsp_diagnostics'), args: { path: outside } },
    { tool: hermesName('lsp_status') },
  ]);
  const [first, , , status] = session.calls as [Call, Call, Call, Call];
  assert.equal(errorOf(first).error, 'PATH_OUTSIDE_ROOTS');
  // 0.22.2 tells an application error (the server answered) from an unreachable server (tools/mcp_tool_handlers.py _check_circuit_breaker).
  assert.match(parsed(status.delivered).error!, NEWER ? /MCP server 'lsp' rejected the last 3 calls \(it is reachable; see the error text those calls returned\)\. Paused for ~\d+s/ : /MCP server 'lsp' is unreachable after 3 consecutive failures/);
  await allEnded(session, 0);
});

test("the bin gets Hermes' filtered environment: a HERMES_MCP_ variable of Hermes' own does not reach it, a ${VAR} of Hermes' .env in the entry's env does", async () => {
  const entry = readmeEntry(work);
  entry.env.HERMES_MCP_ROOTS = '${LSP_ROOTS}';
  delete (entry.env as Partial<typeof entry.env>).HERMES_MCP_LSP_TRUSTED_ROOTS;
  const home = makeHermesHome(join(root, 'home-env'), { config: { mcp_servers: { lsp: entry } }, env: { LSP_ROOTS: work } });
  const env = hermesEnv(home, { OSV_ENDPOINT: 'http://127.0.0.1:9/v1/query', HERMES_MCP_LSP_TRUSTED_ROOTS: work });
  const session = await runDriver<Session>('lsp_mcp_client.py', { calls: [{ tool: hermesName('lsp_status') }, { tool: hermesName('lsp_diagnostics'), args: { path: ts.main } }] }, env, 180_000);
  const [status, diagnostics] = session.calls as [Call, Call];
  assert.deepEqual(resultOf(status).trusted_roots, [], "Hermes' own HERMES_MCP_LSP_TRUSTED_ROOTS stayed with Hermes");
  // Inside the roots the .env gave (else PATH_OUTSIDE_ROOTS), and not trusted.
  assert.equal(errorOf(diagnostics).error, 'LSP_WORKSPACE_UNTRUSTED');
  await allEnded(session, 0);
});
