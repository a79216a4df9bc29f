import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { createServer, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { startHermesApiStandin, type HermesApiStandin, type StandinOptions } from '../fixtures/hermes-api-standin.js';
import { messageText, type ModelRequest, type ScriptedModel, type ScriptedTurn } from '../fixtures/scripted-model.js';
import { makeFakeSystemctl } from './fake-systemctl.js';
import { HermesRelease } from '../../supervisor/platform/hermes/release.js';
import { hermes, makeHermesHome, NO_MANAGED_SCOPE, runDriver, startEgressTrap } from './hermes.js';
import { freePort } from './nginx.js';
import { waitFor } from './wait.js';

// A hermes-mcp-bridge deployment in a temp directory: the bridge's .env (0600) with a fresh
// token, HERMES_ENV_PATH naming the Hermes agent's .env (the real Hermes API server's HERMES_HOME
// .env, or one written for the stand-in), a tasks directory and, when asked, an agents.yaml (0600)
// and a contract. `env` is what a gateway test passes.
//
// startRealHermesApi: Hermes' own API server (gateway/platforms/api_server.py), started as Hermes'
// systemd unit starts it (`python -m hermes_cli.main gateway run`) in a throw-away HERMES_HOME made
// by Hermes' config code, its model a scripted OpenAI-compatible server through a `provider:
// custom` base_url. It cannot reach the internet: HTTP(S)_PROXY is a local trap that refuses every
// request and records it (`egress`, which a test keeps empty), the start-up calls that would go out
// are configured off (tirith's installer, the model-metadata lookup, and the model-catalog refresh
// newer Hermes' gateway starts 30 s after start: gateway/run_watchers.py
// _model_catalog_refresh_watcher, gated by model_catalog.enabled), the environment holds no
// credential but the API key, HOME is a temp directory and systemctl a logging fake that answers
// nothing.

export const STANDIN_KEY = 'sk-standin-key-0123456789abcdef';

export interface BridgeDeployment {
  dir: string;
  envFile: string;
  token: string;
  tasksDir: string;
  agentsFile: string;
  contractFile: string;
  auditLog: string;
  env: Record<string, string>;
  writeAgents(yaml: string, mode?: number): void;
}

export interface BridgeFixture extends BridgeDeployment {
  standin: HermesApiStandin;
  close(): Promise<void>;
}

/** The bridge's files in `dir`, its agent the Hermes API server whose .env is `hermesEnvFile`. */
export function makeBridgeDeployment(dir: string, options: { hermesEnvFile: string; mcpPort?: number; extraEnv?: string; contract?: string }): BridgeDeployment {
  const token = randomBytes(32).toString('hex');
  const tasksDir = join(dir, 'tasks');
  mkdirSync(tasksDir);
  const agentsFile = join(dir, 'agents.yaml');
  const contractFile = join(dir, 'contract.md');
  writeFileSync(contractFile, options.contract ?? '# Contract\nAnswer JSON {summary, artifacts, next_steps}.\n');
  const auditLog = join(dir, 'audit.jsonl');
  const envFile = join(dir, 'bridge.env');
  writeFileSync(
    envFile,
    [
      `MCP_AUTH_TOKEN=${token}`,
      `HERMES_ENV_PATH=${options.hermesEnvFile}`,
      `HERMES_CONTRACT_PATH=${contractFile}`,
      `TASKS_DIR=${tasksDir}`,
      `AGENTS_FILE=${agentsFile}`,
      `AUDIT_LOG=${auditLog}`,
      ...(options.mcpPort !== undefined ? [`MCP_PORT=${options.mcpPort}`] : []),
      options.extraEnv ?? '',
    ].join('\n'),
    { mode: 0o600 },
  );
  return {
    dir,
    envFile,
    token,
    tasksDir,
    agentsFile,
    contractFile,
    auditLog,
    env: { HERMES_MCP_BRIDGE_ENV: envFile },
    writeAgents(yaml, mode = 0o600) {
      writeFileSync(agentsFile, yaml, { mode });
      chmodSync(agentsFile, mode);
    },
  };
}

/** A deployment whose agent is the Hermes API stand-in (tests/fixtures/hermes-api-standin.ts). */
export async function makeBridgeFixture(dir: string, options: { mcpPort?: number; standin?: Partial<StandinOptions>; extraEnv?: string } = {}): Promise<BridgeFixture> {
  const standin = await startHermesApiStandin({ key: STANDIN_KEY, ...options.standin });
  const port = new URL(standin.url).port;
  const hermesEnv = join(dir, 'hermes.env');
  writeFileSync(hermesEnv, `API_SERVER_ENABLED=true\nAPI_SERVER_KEY=${STANDIN_KEY}\nAPI_SERVER_HOST=127.0.0.1\nAPI_SERVER_PORT=${port}\n`, { mode: 0o600 });
  const deployment = makeBridgeDeployment(dir, { hermesEnvFile: hermesEnv, ...(options.mcpPort !== undefined ? { mcpPort: options.mcpPort } : {}), ...(options.extraEnv ? { extraEnv: options.extraEnv } : {}) });
  return { ...deployment, standin, close: () => standin.close() };
}

export interface RealHermesApi {
  /** http://127.0.0.1:<port> */
  url: string;
  key: string;
  home: string;
  /** $HERMES_HOME/.env: API_SERVER_KEY, _HOST, _PORT (what HERMES_ENV_PATH names). */
  envFile: string;
  /** Profile name -> its directory (each with its own API_SERVER_KEY), served under /p/<name>. */
  profiles: Record<string, string>;
  /** Every outbound request Hermes tried (refused by the trap): "CONNECT host:443 ...". */
  egress: string[];
  systemctlCalls(): string[];
  /** Hermes' stdout and stderr so far. */
  output(): string;
  /** Kills the gateway (SIGKILL, a crash: its in-memory runs are lost) and starts it again on the same home and port. */
  restart(): Promise<void>;
  close(): Promise<void>;
}

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((resolve) => child.once('exit', () => resolve()));
}

export interface RealHermesOptions {
  model: ScriptedModel;
  /** Named profiles and their own API_SERVER_KEY: created by Hermes, served with gateway.multiplex_profiles. */
  profiles?: Record<string, string>;
  /** More config.yaml keys (merged by Hermes' config module). */
  config?: Record<string, unknown>;
  startTimeoutMs?: number;
  /** Hermes' managed scope (HERMES_MANAGED_DIR); none by default: a directory that does not exist, so a machine's /etc/hermes is never read. */
  managedDir?: string;
}

export async function startRealHermesApi(dir: string, options: RealHermesOptions): Promise<RealHermesApi> {
  const home = join(dir, 'hermes-home');
  const userHome = join(dir, 'user-home');
  const work = join(dir, 'work');
  mkdirSync(userHome, { recursive: true });
  mkdirSync(work, { recursive: true });
  const key = `sk-hermes-test-${randomBytes(24).toString('hex')}`;
  const port = await freePort();
  makeHermesHome(home, {
    config: {
      // The scripted model as a custom OpenAI-compatible provider; an explicit context length, so
      // the agent does not look the model up on OpenRouter / models.dev.
      model: { provider: 'custom', base_url: options.model.baseUrl, default: 'scripted-model', context_length: 131072 },
      // tirith's pre-exec scanner would download its binary from GitHub at start.
      security: { tirith_enabled: false },
      // Newer Hermes refreshes its /model picker's catalogs (Nous, GitHub, OpenRouter) from its
      // gateway 30 s after start and then hourly; 0.19 reads the key too (no refresher).
      model_catalog: { enabled: false },
      ...options.config,
      ...(options.profiles ? { gateway: { ...(options.config?.gateway as Record<string, unknown> | undefined), multiplex_profiles: true } } : {}),
    },
    env: { API_SERVER_ENABLED: 'true', API_SERVER_KEY: key, API_SERVER_HOST: '127.0.0.1', API_SERVER_PORT: String(port) },
  });
  const systemctl = makeFakeSystemctl(dir);
  const trap = await startEgressTrap();
  const proxy = trap.env;
  // Only what a process needs: no credential from this environment reaches Hermes.
  const env: Record<string, string> = {
    PATH: `${systemctl.bin}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    LANG: 'C.UTF-8',
    HOME: userHome,
    HERMES_HOME: home,
    HERMES_MANAGED_DIR: options.managedDir ?? join(home, NO_MANAGED_SCOPE),
    PYTHONDONTWRITEBYTECODE: '1',
    ...proxy,
  };
  let profiles: Record<string, string> = {};
  if (options.profiles) profiles = (await runDriver<{ profiles: Record<string, string> }>('bridge_profile.py', { profiles: options.profiles }, env)).profiles;
  const url = `http://127.0.0.1:${port}`;
  let output = '';
  let child: ChildProcess | undefined;
  const running = (c: ChildProcess): boolean => c.exitCode === null && c.signalCode === null;
  /** Ends the gateway's process group (what its tools started too): SIGTERM lets Hermes drain, SIGKILL is a crash. */
  const stop = async (signal: 'SIGTERM' | 'SIGKILL') => {
    const c = child;
    if (!c || !running(c)) return;
    const kill = (sig: NodeJS.Signals) => {
      try {
        process.kill(-c.pid!, sig);
      } catch {
        // already gone
      }
    };
    kill(signal);
    const timer = setTimeout(() => kill('SIGKILL'), 20_000);
    await exited(c);
    clearTimeout(timer);
  };
  const start = async () => {
    const c = spawn(hermes().python, ['-m', 'hermes_cli.main', 'gateway', 'run'], { cwd: work, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    child = c;
    c.stdout!.setEncoding('utf8').on('data', (d: string) => (output += d));
    c.stderr!.setEncoding('utf8').on('data', (d: string) => (output += d));
    const timeoutMs = options.startTimeoutMs ?? 60_000;
    await waitFor(
      async () => {
        if (!running(c)) throw new Error(`Hermes gateway exited (${c.exitCode ?? c.signalCode}) before its API server answered:\n${output.slice(-4000)}`);
        return fetch(`${url}/health`).then(
          (r) => r.ok,
          () => false,
        );
      },
      timeoutMs,
      `Hermes' API server on ${url}/health`,
      100,
    );
  };
  const close = async () => {
    await stop('SIGTERM');
    await trap.close();
  };
  try {
    await start();
  } catch (e) {
    await close();
    throw new Error(`${(e as Error).message}\n${output.slice(-4000)}`);
  }
  const restart = async () => {
    await stop('SIGKILL');
    await start();
  };
  return { url, key, home, envFile: join(home, '.env'), profiles, egress: trap.attempts, systemctlCalls: systemctl.calls, output: () => output, restart, close };
}

// Reading what Hermes sent the scripted model for a bridge task.
type ModelMessage = { role: string; content?: unknown; tool_calls?: unknown };
/** The messages of a chat completion request. */
export const modelMessages = (r: ModelRequest): ModelMessage[] => (r.body?.messages as ModelMessage[] | undefined) ?? [];
/** The text of its last user message. */
export const lastUserText = (r: ModelRequest): string => messageText(modelMessages(r).filter((m) => m.role === 'user').at(-1)?.content);
/** Its system prompt (Hermes' own, with the task's contract appended). */
export const systemText = (r: ModelRequest): string => modelMessages(r).filter((m) => m.role === 'system').map((m) => messageText(m.content)).join('\n');

/** The role of the request's last message: what the agent turn answers (a user task, a tool result). */
export const lastRole = (r: ModelRequest): string | undefined => modelMessages(r).at(-1)?.role;

/** Hermes' compressor asking for a summary (its summarization prompt, no tools), not an agent turn. */
export const isSummaryRequest = (r: ModelRequest): boolean => !Array.isArray(r.body?.tools) && JSON.stringify(r.body?.messages ?? '').includes('summarization agent');

/**
 * config.yaml for a Hermes that rotates its session when it compresses (in_place false: the old
 * session ends with end_reason compression and a child continues it) and that finds something to
 * compress in a short test transcript (protect_first_n 0, protect_last_n 1).
 */
export const ROTATING_COMPRESSION = { compression: { in_place: false, protect_first_n: 0, protect_last_n: 1 } };

/**
 * The scripted turns of task `taskId` making Hermes compress mid-run: two read_file calls of
 * `path` (its compressor keeps at least 3 tail messages, so one call leaves nothing to compress;
 * an earlier turn of the session should carry BULKY_NOTES, so that the compressed transcript is
 * the smaller one),
 * the second reporting a 125,000-token prompt (over the threshold of context_length 131,072);
 * Hermes' summary request answered `summary`; the turn after the compression answered `answer`.
 */
export function compressingRun(taskId: string, path: string, summary: string, answer: string): ScriptedTurn[] {
  const read = { name: 'read_file', arguments: { path } };
  return [
    { when: (r) => agentTurnFor(taskId)(r) && lastRole(r) === 'user', toolCalls: [read] },
    { when: (r) => agentTurnFor(taskId)(r) && lastRole(r) === 'tool', toolCalls: [read], usage: { prompt_tokens: 125_000, completion_tokens: 5 } },
    { when: isSummaryRequest, text: summary },
    { when: (r) => Array.isArray(r.body?.tools) && lastRole(r) === 'tool', text: answer },
  ];
}

/**
 * Notes long enough that Hermes' compression of a transcript holding them in an earlier turn
 * shrinks the transcript: newer Hermes refuses a compression whose result would be larger than the
 * original (agent/conversation_compression.py _salvage_or_refuse_grown_transcript), its summary
 * framing alone outweighs a short test transcript, and it never compresses the current turn (the
 * last user message and its tool calls stay: agent/context_compressor.py
 * _find_tail_cut_by_tokens). Sent as the first task's `context`, they are that turn's user text,
 * which an async run also carries (conversation_history keeps text, not tool results). About 32 KB.
 */
export const BULKY_NOTES = Array.from({ length: 320 }, (_, i) => `note ${String(i).padStart(3, '0')}: the quick brown fox ${i % 7} jumps over the lazy dog ${i % 11}, item ${i * 37}.`).join('\n');

/** Whether this Hermes API server says its POST /v1/runs honours Idempotency-Key (GET /v1/capabilities). */
export async function runsIdempotent(hermes: RealHermesApi): Promise<boolean> {
  const features = (await hermesGet(hermes, '/v1/capabilities')).features as { runs_idempotency?: { supported?: unknown } } | undefined;
  return features?.runs_idempotency?.supported === true;
}

/** One answer the relay passed on (or dropped). */
export interface RelayedAnswer {
  method: string;
  path: string;
  status: number;
  /** Its X-Hermes-Session-Id header, if any. */
  sessionId?: string;
}

export interface HermesRelay {
  /** http://127.0.0.1:<port>: use it as an agent's base_url. */
  url: string;
  /** Every answer Hermes gave through the relay, in order. */
  answers: RelayedAnswer[];
  /** The next `method path` request is forwarded, Hermes answers it, and the caller's connection is then closed without that answer. */
  dropNextAnswer(method: string, path: string): void;
  /** The requests whose answers were dropped. */
  dropped: string[];
  close(): Promise<void>;
}

/**
 * A loopback HTTP relay in front of `target` (a Hermes API server): it records what Hermes answered
 * (what a test cannot see through the gateway), and can lose one answer: the request reaches Hermes
 * and Hermes acts on it, but the caller sees its connection close (an answer lost in transit, which
 * no Hermes can be made to produce on demand). Everything else is relayed as it is.
 */
export async function startHermesRelay(target: string): Promise<HermesRelay> {
  const armed: string[] = [];
  const dropped: string[] = [];
  const answers: RelayedAnswer[] = [];
  const upstream = new URL(target);
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const method = req.method ?? 'GET';
      const path = new URL(req.url ?? '/', 'http://relay').pathname;
      const headers: IncomingHttpHeaders = { ...req.headers, host: upstream.host };
      const out = httpRequest({ host: upstream.hostname, port: upstream.port, method, path: req.url, headers }, (answer) => {
        const body: Buffer[] = [];
        answer.on('data', (c: Buffer) => body.push(c));
        answer.on('end', () => {
          const session = answer.headers['x-hermes-session-id'];
          answers.push({ method, path, status: answer.statusCode ?? 0, ...(typeof session === 'string' ? { sessionId: session } : {}) });
          const at = armed.indexOf(`${method} ${path}`);
          if (at >= 0) {
            armed.splice(at, 1);
            dropped.push(`${method} ${path}`);
            req.socket.destroy();
            return;
          }
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          res.end(Buffer.concat(body));
        });
      });
      out.on('error', () => req.socket.destroy());
      out.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    answers,
    dropNextAnswer: (method, path) => void armed.push(`${method} ${path}`),
    dropped,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Whether this pin's Hermes loads a run's session history itself (HERMES_CHANGES
 * runs_load_session_history, which no capability shows): then the bridge sends none, and an async
 * run sees what Hermes stored, tool traffic and compression summary included.
 */
export function runsLoadSessionHistory(): boolean {
  return new HermesRelease(hermes().version).has('runs_load_session_history');
}

/** GET `path` of Hermes' API server with its key; the JSON body (asserting 200). */
export async function hermesGet(hermes: RealHermesApi, path: string): Promise<Record<string, unknown>> {
  const r = await fetch(`${hermes.url}${path}`, { headers: { authorization: `Bearer ${hermes.key}` } });
  if (r.status !== 200) throw new Error(`Hermes API GET ${path}: HTTP ${r.status} ${await r.text()}`);
  return (await r.json()) as Record<string, unknown>;
}

/** A session's row as Hermes' session API answers it (GET /api/sessions/{id}: exactly that session, no chain followed). */
export async function hermesSession(hermes: RealHermesApi, id: string): Promise<Record<string, unknown>> {
  return ((await hermesGet(hermes, `/api/sessions/${id}`)).session as Record<string, unknown> | undefined) ?? {};
}
/** Hermes' agent turn (it sends its tools) for bridge task `id`: the last user message is that task's prompt. */
export const agentTurnFor = (id: string) => (r: ModelRequest): boolean => Array.isArray(r.body?.tools) && lastUserText(r).includes(`Task id: ${id}\n`);

/** A tool's answer on the bridge profile's /bridge/mcp (plain JSON-RPC, as hermes-mcp-bridge's clients post it). */
export interface BridgeToolAnswer {
  isError: boolean;
  data: Record<string, unknown>;
}

/** `call` posts tools/call to the gateway's bridge profile with the deployment's token; `ok` also requires a non-error answer. */
export function bridgeToolCaller(gatewayUrl: () => string, token: () => string): { call: (name: string, args: Record<string, unknown>) => Promise<BridgeToolAnswer>; ok: (name: string, args: Record<string, unknown>) => Promise<Record<string, unknown>> } {
  let rpcId = 0;
  async function call(name: string, args: Record<string, unknown>): Promise<BridgeToolAnswer> {
    const r = await fetch(`${gatewayUrl()}/bridge/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token()}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++rpcId, method: 'tools/call', params: { name, arguments: args } }),
    });
    const body = (await r.json()) as { result?: { isError?: boolean; structuredContent?: Record<string, unknown> }; error?: unknown };
    if (!body.result) throw new Error(`${name}: ${JSON.stringify(body)}`);
    return { isError: body.result.isError === true, data: body.result.structuredContent ?? {} };
  }
  async function ok(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
    const r = await call(name, args);
    if (r.isError) throw new Error(`${name}: ${JSON.stringify(r.data)}`);
    return r.data;
  }
  return { call, ok };
}
