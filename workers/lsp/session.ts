import { spawn, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { readFile } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { monotonicMs } from '../../shared/clock.js';
import {
  createProtocolConnection,
  DidChangeTextDocumentNotification,
  DidCloseTextDocumentNotification,
  DidOpenTextDocumentNotification,
  ExitNotification,
  InitializedNotification,
  InitializeRequest,
  PublishDiagnosticsNotification,
  ShutdownRequest,
  StreamMessageReader,
  StreamMessageWriter,
  type Diagnostic,
  type InitializeResult,
  type ProtocolConnection,
  type Registration,
} from 'vscode-languageserver-protocol/node';
import { withKeyedLocks } from '../../shared/keyed-lock.js';
import type { LspLaunch } from '../../shared/worker-protocol/lsp.js';
import { LspFailure, type Budget } from './budget.js';
import { answerServerRequests, CLIENT_CAPABILITIES, workspaceFolder } from './client-requests.js';

// One running language server for one workspace root: its process (own process group, so a stop
// takes its helpers such as tsserver too), the LSP connection (vscode-jsonrpc framing), the
// initialize handshake, the documents this client has opened (full-text sync, content read fresh
// from disk by every query, one version counter per document), the diagnostics it pushed and the
// capabilities it registered. Pull-or-push decisions are in diagnostics.ts.
// Queries on one document take turns (withDocument): a diagnostics call closes and reopens it, and
// another call's didOpen, request or publish wait landing in between would see a closed document,
// open it twice, or take the other call's publishes for its own.

const STDERR_KEEP = 4000;
/** How long a stopping server gets to answer `shutdown`, and then to exit after `exit`. */
const STOP_STEP_MS = 1500;
/** A request every server answers at once, with an error (LSP: an unknown `$/` request is MethodNotFound). */
const BARRIER_METHOD = '$/hermes/barrier';

export interface PushedDiagnostics {
  /** Order of arrival across all files (a query compares it with the point it synced at). */
  seq: number;
  /** When it arrived, on the monotonic clock (the settle wait measures from it). */
  at: number;
  items: Diagnostic[];
}

/** Pids of every server process spawned here: libuv reaps these, the zombie sweep must not. */
export const spawnedServerPids = new Set<number>();

let sessionCount = 0;

export class ServerSession extends EventEmitter {
  /** Distinguishes this session's document locks from those of a restarted server for the same root. */
  private readonly id = ++sessionCount;
  readonly startedAt = Date.now();
  lastUsedAt = Date.now();
  inflight = 0;
  state: 'starting' | 'ready' | 'dead' = 'starting';
  readonly ready: Promise<InitializeResult>;
  /** Rejects with LSP_SERVER_FAILED when the process ends; every wait of a query races it. */
  readonly died: Promise<never>;
  private readonly proc: ChildProcess;
  readonly connection: ProtocolConnection;
  private stderrTail = '';
  private readonly documents = new Map<string, { version: number; text: string }>();
  private readonly pushed = new Map<string, PushedDiagnostics>();
  private pushSeq = 0;
  readonly registrations = new Map<string, Registration>();

  constructor(
    readonly launch: LspLaunch,
    readonly root: string,
  ) {
    super();
    this.setMaxListeners(0); // one waiter per concurrent query; no leak to warn about
    this.proc = spawn(launch.argv[0]!, launch.argv.slice(1), { cwd: root, env: launch.env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    const pid = this.proc.pid;
    if (pid) spawnedServerPids.add(pid);
    this.proc.stderr!.on('data', (chunk: Buffer) => (this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-STDERR_KEEP)));
    this.proc.stdin!.on('error', () => {});
    this.died = new Promise<never>((_, reject) => {
      const end = (how: string) => {
        if (this.state === 'dead') return;
        this.state = 'dead';
        if (pid) setTimeout(() => spawnedServerPids.delete(pid), 1000);
        reject(new LspFailure('LSP_SERVER_FAILED', `${launch.name} language server ${how}${this.stderrTail.trim() ? `: ${this.stderrTail.trim().slice(-600)}` : ''}`));
        this.emit('dead');
      };
      this.proc.once('exit', (code, signal) => end(`exited (${signal ? `signal ${signal}` : `code ${code}`})`));
      this.proc.once('error', (e) => end(`could not start: ${e.message}`));
    });
    this.died.catch(() => {});
    this.connection = createProtocolConnection(new StreamMessageReader(this.proc.stdout!), new StreamMessageWriter(this.proc.stdin!));
    answerServerRequests(this.connection, root, (added, removed) => {
      for (const r of added) this.registrations.set(r.id, r);
      for (const id of removed) this.registrations.delete(id);
      this.emit('changed');
    });
    this.connection.onNotification(PublishDiagnosticsNotification.type, (params) => {
      const path = pathOf(params.uri);
      if (path === undefined) return;
      this.pushed.set(path, { seq: ++this.pushSeq, at: monotonicMs(), items: params.diagnostics });
      this.emit('changed');
    });
    this.connection.onError(() => {});
    this.connection.listen();
    this.ready = this.initialize();
    this.ready.catch(() => {});
  }

  get pid(): number | undefined {
    return this.proc.pid;
  }

  private async initialize(): Promise<InitializeResult> {
    const folder = workspaceFolder(this.root);
    let result: InitializeResult;
    try {
      result = await Promise.race([
        this.connection.sendRequest(InitializeRequest.type, {
          processId: process.pid,
          clientInfo: { name: 'hermes-mcp-gateway' },
          rootUri: folder.uri,
          rootPath: this.root,
          workspaceFolders: [folder],
          capabilities: CLIENT_CAPABILITIES,
          initializationOptions: this.launch.initializationOptions ?? null,
        }),
        this.died,
      ]);
    } catch (e) {
      if (e instanceof LspFailure) throw e;
      this.kill();
      throw new LspFailure('LSP_SERVER_FAILED', `${this.launch.name} language server refused initialize: ${(e as Error).message}`);
    }
    await this.connection.sendNotification(InitializedNotification.type, {});
    this.state = 'ready';
    this.emit('ready');
    return result;
  }

  /** `work`, or LSP_SERVER_FAILED as soon as the server dies. */
  guard<T>(work: Promise<T>): Promise<T> {
    return Promise.race([work, this.died]);
  }

  /**
   * Runs `work` (this query's whole use of `file`: sync and request, or reopen and the wait for its
   * publishes) once no other query of this session uses `file`, in arrival order. The turn ends
   * with `work`, or when the budget runs out or the server dies; a query whose budget ran out while
   * it waited for its turn sends nothing.
   */
  withDocument<T>(file: string, budget: Budget, work: () => Promise<T>): Promise<T> {
    const key = `${this.id}\0${pathToFileURL(file).href}`;
    return budget.race(
      withKeyedLocks([key], async () => {
        if (budget.ended) return budget.expired;
        return budget.race(this.guard(work()));
      }),
    );
  }

  /** Opens `file` or brings the server's copy up to date with the disk; returns its URI. */
  async sync(file: string, languageId: string): Promise<string> {
    const text = await readText(file);
    const uri = pathToFileURL(file).href;
    const doc = this.documents.get(uri);
    if (!doc) {
      this.documents.set(uri, { version: 1, text });
      await this.connection.sendNotification(DidOpenTextDocumentNotification.type, { textDocument: { uri, languageId, version: 1, text } });
    } else if (doc.text !== text) {
      doc.version++;
      doc.text = text;
      await this.connection.sendNotification(DidChangeTextDocumentNotification.type, { textDocument: { uri, version: doc.version }, contentChanges: [{ text }] });
    }
    return uri;
  }

  /**
   * Closes `file` (if open) and opens it again with its current content: a push-model server then
   * publishes that file's diagnostics afresh even when they did not change (typescript-language-
   * server publishes only changes while a file stays open). Returns the push count from which a
   * publish belongs to this opening: the barrier request is answered only after the server handled
   * didClose, so the empty publish a close causes is counted before it.
   */
  async reopen(file: string, languageId: string, budget: Budget): Promise<number> {
    const uri = pathToFileURL(file).href;
    const doc = this.documents.get(uri);
    if (doc) {
      this.documents.delete(uri);
      await this.connection.sendNotification(DidCloseTextDocumentNotification.type, { textDocument: { uri } });
      // Raced with the budget so that a query out of time never sends its didOpen after its turn ended.
      await budget.race(this.guard(this.connection.sendRequest(BARRIER_METHOD).then(() => undefined, () => undefined)));
    }
    const baseline = this.pushSeq;
    const text = await readText(file);
    const version = (doc?.version ?? 0) + 1;
    this.documents.set(uri, { version, text });
    await this.connection.sendNotification(DidOpenTextDocumentNotification.type, { textDocument: { uri, languageId, version, text } });
    return baseline;
  }

  /** The last publish for `file` after push number `after`, if any. */
  pushedAfter(file: string, after: number): PushedDiagnostics | undefined {
    const p = this.pushed.get(file);
    return p && p.seq > after ? p : undefined;
  }

  /** Resolves at the next publish or (un)registration; the caller re-checks its condition. */
  nextChange(): Promise<void> {
    return new Promise((resolve) => this.once('changed', () => resolve()));
  }

  /** shutdown, exit, then SIGKILL to the whole process group: nothing of the server survives a stop. */
  async stop(): Promise<void> {
    if (this.state !== 'dead') {
      const step = (work: Promise<unknown>) => Promise.race([work.catch(() => {}), this.died.catch(() => {}), new Promise((r) => setTimeout(r, STOP_STEP_MS))]);
      await step(this.connection.sendRequest(ShutdownRequest.type));
      await step(this.connection.sendNotification(ExitNotification.type));
    }
    this.kill();
    await this.died.catch(() => {});
    this.connection.dispose();
  }

  kill(): void {
    const pid = this.proc.pid;
    if (!pid) return;
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // group gone
    }
  }
}

function pathOf(uri: string): string | undefined {
  try {
    return fileURLToPath(uri);
  } catch {
    return undefined;
  }
}

async function readText(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (e) {
    throw new LspFailure('FILE_NOT_FOUND', `cannot read ${file}: ${(e as Error).message}`);
  }
}
