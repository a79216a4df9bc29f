import { mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/client';
import { packageRoot } from '../../shared/package-root.js';
import { descendantsOf } from '../../shared/proc.js';
import { startHonchoStandin, type HonchoStandin, type Hold } from '../fixtures/honcho-standin.js';
import { makeBridgeFixture, type BridgeFixture } from '../helpers/bridge.js';
import { ALLOW_LOOPBACK_PAGES, happyCamofoxReply, startFakeCamofox, type FakeCamofox } from '../helpers/browser.js';
import { connect, makeHermesHome, sessionToken, startTestGateway, viaBridge, type TestGateway } from '../helpers/gateway.js';
import { standIn } from '../helpers/graph.js';
import { makeHermesHome as writeHermesConfig } from '../helpers/hermes.js';
import { toolServerReadiness, toolServerStandIn } from '../helpers/hermes-tools.js';
import { honchoJson } from '../helpers/memory.js';
import { cmdline, parentOf } from '../helpers/procfs.js';
import { tempDirs } from '../helpers/temp.js';
import { waitFor } from '../helpers/wait.js';
import { assertBoundedFailure, countersSettle, FULL, timed } from './faults.js';

// The fault matrix: one gateway with every upstream a stand-in, and for each (component × fault)
// cell a call through tool_call that meets the fault. Every cell checks the same three promises:
// the caller gets a bounded error naming the component, /healthz's in-flight counters return to 0,
// and the next call to that component works (the supervisor kept serving). Budgets are shortened
// (1–2 s) so a hang is proven bounded quickly. `npm run test:faults` (FAULTS_FULL=1) runs every
// cell three times in a row: a fault must not leave anything behind that the next one trips on.

type Result = { isError: boolean; data: Record<string, unknown> };
interface Cell {
  component: string;
  fault: string;
  /** The call that meets the fault (and arms it first when the fault is a switch). */
  faulty(): Promise<Result>;
  code: string | RegExp;
  names: RegExp;
  withinMs: number;
  /** A following call to the same component; it must succeed. */
  next(): Promise<Result>;
  /** What else must be true after the fault (a durable record that tells the truth). */
  verify?(): Promise<void>;
  /** Undoes a fault that outlives its call (a held request). */
  cleanup?(): void;
}

const SCRIPTED_LSP = join(packageRoot(), 'dist', 'tests', 'fixtures', 'scripted-language-server.js');
const dirs = tempDirs();
let gw: TestGateway;
let client: Client;
let token: string;
let honcho: HonchoStandin;
let camofox: FakeCamofox;
let bridge: BridgeFixture;
let root: string;
let camofoxFault: 500 | 'hang' | 'drop' | undefined;
let held: Hold | undefined;
let taskSeq = 0;

before(async () => {
  root = realpathSync(dirs.make('hmcp-faults-root-'));
  mkdirSync(join(root, 'p'));
  for (const [name, text] of [['crash', 'crash'], ['hang', 'hang'], ['ok', 'fine']]) writeFileSync(join(root, `${name}.scripted`), `${text}\n`);
  const servers = join(root, 'servers.json');
  writeFileSync(servers, JSON.stringify({ servers: [{ name: 'scripted', command: [process.execPath, SCRIPTED_LSP, heldLog()], extensions: ['.scripted'], install: 'nothing to install (test fixture)' }] }));
  const graph = standIn(dirs.make('hmcp-faults-graph-'));
  const tools = toolServerStandIn(dirs.make('hmcp-faults-tools-'));
  honcho = await startHonchoStandin();
  honcho.seed({ workspace: 'hermes', peers: ['ada', 'hermes'], cards: [{ observer: 'ada', observed: 'ada', card: ['Name: Ada'] }] });
  // One-shot faults on POST /tabs; everything else (the health probe included) is the happy path.
  camofox = await startFakeCamofox({
    reply: (r) => {
      const fault = r.method === 'POST' && r.path === '/tabs' ? camofoxFault : undefined;
      camofoxFault = undefined;
      if (fault === 500) return { status: 500, body: { error: 'Internal Server Error' } };
      return fault ?? happyCamofoxReply(r);
    },
  });
  bridge = await makeBridgeFixture(dirs.make('hmcp-faults-bridge-'));
  const home = makeHermesHome();
  writeFileSync(join(home, 'honcho.json'), JSON.stringify(honchoJson(honcho.url)));
  writeHermesConfig(home, { config: ALLOW_LOOPBACK_PAGES });
  gw = await startTestGateway({
    home,
    env: {
      HERMES_HOME: home,
      HERMES_MCP_ROOTS: root,
      HERMES_MCP_GRAPH_COMMAND: graph.command,
      HERMES_MCP_HERMES_TOOLS_COMMAND: tools.command,
      HERMES_MCP_LSP_TRUSTED_ROOTS: root,
      HERMES_MCP_LSP_SERVERS: servers,
      CAMOFOX_URL: camofox.url,
      ...bridge.env,
    },
    limits: {
      graphCallTimeoutSeconds: 1,
      lspCallTimeoutSeconds: 2,
      hermesToolsCallTimeoutSeconds: 1,
      hermesToolsRestartMinMs: 300,
      hermesToolsRestartMaxSeconds: 2,
      memoryTimeoutSeconds: 1,
      memoryWorkerMaxSeconds: 2,
      browserCommandTimeoutSeconds: 1,
      browserNavigateTimeoutSeconds: 1,
      browserHealthTimeoutSeconds: 1,
      bridgeSyncTimeoutSeconds: 1,
      bridgeRequestTimeoutSeconds: 1,
    },
  });
  client = await connect(gw.mcpUrl, 'modern');
  token = await sessionToken(client);
});

after(async () => {
  held?.release();
  await client?.close();
  await gw?.close();
  await honcho?.close();
  await camofox?.close();
  await bridge?.close();
  dirs.removeAll();
});

/** SIGKILLs the gateway's terminal worker (the node process, below its setpriv/unshare launcher) while a command runs. */
function killTerminalWorker(): number {
  const workers = descendantsOf(process.pid).filter((pid) => cmdline(pid).includes('terminal-worker.js'));
  const leaves = workers.filter((pid) => workers.includes(parentOf(pid)));
  const victims = leaves.length > 0 ? leaves : workers;
  for (const pid of victims) process.kill(pid, 'SIGKILL');
  return victims.length;
}

/** Where the scripted language server notes each request it holds (one line each). */
function heldLog(): string {
  return join(root, 'held.log');
}
function heldCount(): number {
  try {
    return readFileSync(heldLog(), 'utf8').split('\n').length - 1;
  } catch {
    return 0;
  }
}
const call = (name: string, args: Record<string, unknown> = {}) => viaBridge(client, name, args, token);
const lsp = (file: string) => call('lsp_document_symbols', { path: join(root, file) });
const graph = (question: string) => call('inspect_code_graph', { cwd: join(root, 'p'), question, request: { type: 'lookup' } });
// A fresh owner per browser cell: its first navigate opens a tab (POST /tabs, where the fault is armed).
let browserToken = '';
const navigate = () => viaBridge(client, 'browser_navigate', { url: 'http://127.0.0.1:1/' }, browserToken);
const task = (text: string) => call('hermes_task', { task: text, mode: 'sync', id: `fault-${++taskSeq}` });

const cells: Cell[] = [
  {
    component: 'terminal worker', fault: 'crash mid-call', code: 'WORKER_FAILED', names: /terminal worker/, withinMs: 4000,
    faulty: async () => {
      const pending = call('terminal', { command: 'sleep 5; echo late' });
      await waitFor(() => descendantsOf(process.pid).some((pid) => cmdline(pid).startsWith('sleep 5')), 5000, 'the command to run');
      assert.ok(killTerminalWorker() > 0, 'a terminal worker to kill');
      return pending;
    },
    next: () => call('terminal', { command: 'echo alive' }),
  },
  { component: 'graph upstream', fault: 'crash mid-call', code: 'GRAPH_UPSTREAM_FAILED', names: /graph/i, withinMs: 3000, faulty: () => graph('crash'), next: () => graph('after') },
  { component: 'graph upstream', fault: 'hang', code: 'GRAPH_TIMEOUT', names: /graph/i, withinMs: 4000, faulty: () => graph('sleep:8000'), next: () => graph('after') },
  { component: 'language server', fault: 'crash mid-call', code: 'LSP_SERVER_FAILED', names: /scripted|language server|LSP/i, withinMs: 4000, faulty: () => lsp('crash.scripted'), next: () => lsp('ok.scripted') },
  { component: 'language server', fault: 'hang', code: 'LSP_TIMEOUT', names: /scripted|language server|LSP/i, withinMs: 5000, faulty: () => lsp('hang.scripted'), next: () => lsp('ok.scripted') },
  {
    component: 'LSP worker', fault: 'crash mid-call', code: 'LSP_SERVER_FAILED', names: /LSP worker|worker/i, withinMs: 4000,
    faulty: async () => {
      const worker = (await call('lsp_status')).data.worker as { pid: number };
      const held = heldCount();
      const pending = lsp('hang.scripted');
      await waitFor(() => heldCount() > held, 5000, 'the language server to hold the request');
      process.kill(worker.pid, 'SIGKILL');
      return pending;
    },
    next: () => lsp('ok.scripted'),
  },
  {
    component: 'Hermes tool server', fault: 'crash mid-call', code: 'HERMES_TOOLS_FAILED', names: /hermes_tools/, withinMs: 3000,
    faulty: () => call('web_search', { query: 'crash' }),
    // The next call waits for /readyz to show the restarted server up: with the budget shortened
    // to 1 s, a call made during the restart on a loaded host measures process start-up, not the
    // promise that the server is restarted and serves again.
    verify: () => waitFor(async () => (await toolServerReadiness(gw.url)).hermesTools.ready, 30_000, 'the restarted tool server up').then(() => undefined),
    next: () => call('web_search', { query: 'after' }),
  },
  { component: 'Hermes tool server', fault: 'hang', code: 'HERMES_TOOLS_TIMEOUT', names: /hermes_tools|tool server/i, withinMs: 4000, faulty: () => call('web_search', { query: 'slow:8000' }), next: () => call('web_search', { query: 'after' }) },
  ...([500, 'drop', 'hang'] as const).map((fault): Cell => ({
    component: 'Honcho', fault: fault === 500 ? 'answers 500' : fault === 'drop' ? 'closes the socket' : 'hangs',
    code: fault === 'hang' ? 'MEMORY_TIMEOUT' : 'MEMORY_UNAVAILABLE', names: /Honcho/, withinMs: 4000,
    faulty: () => {
      const isCard = (c: { method: string; path: string }) => c.method === 'GET' && c.path.endsWith('/card');
      if (fault === 'hang') held = honcho.hold(isCard);
      else honcho.failNext(isCard, fault);
      return call('memory_profile');
    },
    next: () => call('memory_profile'),
    cleanup: () => held?.release(),
  })),
  ...([500, 'drop', 'hang'] as const).map((fault): Cell => ({
    component: 'Camofox', fault: fault === 500 ? 'answers 500' : fault === 'drop' ? 'closes the socket' : 'hangs',
    code: /^BROWSER_(UNAVAILABLE|TIMEOUT|ACTION_FAILED)$/, names: /camofox/i, withinMs: 4000,
    faulty: async () => {
      browserToken = await sessionToken(client);
      camofoxFault = fault;
      return navigate();
    },
    next: navigate,
  })),
  ...(['HTTP500', 'DROP', 'HANG'] as const).map((fault): Cell => ({
    component: 'Hermes API', fault: fault === 'HTTP500' ? 'answers 500' : fault === 'DROP' ? 'closes the socket' : 'hangs',
    code: fault === 'HANG' ? 'TASK_TIMEOUT' : 'UPSTREAM_FAILED', names: /agent hermes|Hermes API/, withinMs: 4000,
    faulty: () => task(`${fault} please`),
    // A 500 is an answer (failed); a hang or a closed socket leaves the agent possibly working on
    // the task, so the durable result must say interrupted, never failed or unreachable.
    verify: async () => {
      const result = await call('hermes_result', { id: `fault-${taskSeq}` });
      assert.equal(result.data.status, fault === 'HTTP500' ? 'failed' : 'interrupted', JSON.stringify(result.data));
    },
    next: () => task('hello'),
  })),
];

describe('fault matrix: (component × fault) through the gateway', () => {
  const rounds = FULL ? 3 : 1;
  // Every component answers once before its first fault, so a cell's short budget covers the fault
  // alone and not a first call's start-up (a worker spawned, the Honcho SDK loaded and its peers
  // made): on a loaded machine that start-up ran past the 1 s budget, and `Honcho × answers 500`
  // answered MEMORY_TIMEOUT. The warm-up call is repeated until one succeeds (a first call can
  // itself run past the budget while the host is busy); a component that never answers fails here.
  before(async () => {
    browserToken = await sessionToken(client);
    for (const cell of cells.filter((c, i) => cells.findIndex((o) => o.component === c.component) === i)) {
      let last: Result | undefined;
      await waitFor(async () => !(last = await cell.next()).isError, 60_000, `${cell.component} to answer before any fault`, 200).catch((err: Error) => {
        throw new Error(`${err.message}: ${JSON.stringify(last?.data)}`);
      });
    }
  });
  for (const cell of cells) {
    test(`${cell.component} × ${cell.fault}: bounded error naming it, counters back to 0, next call works`, async () => {
      for (let round = 0; round < rounds; round++) {
        const name = `${cell.component} × ${cell.fault} (round ${round + 1})`;
        try {
          assertBoundedFailure(name, await timed(cell.faulty), { code: cell.code, names: cell.names, withinMs: cell.withinMs });
        } finally {
          cell.cleanup?.();
        }
        await cell.verify?.();
        await countersSettle(gw.url);
        const next = await cell.next();
        assert.equal(next.isError, false, `${name}, the next call: ${JSON.stringify(next.data)}`);
        await countersSettle(gw.url);
      }
    });
  }
});
