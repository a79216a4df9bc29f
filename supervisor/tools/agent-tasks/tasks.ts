import { randomBytes } from 'node:crypto';
import { closeSync, constants, fstatSync, fsyncSync, lstatSync, mkdirSync, openSync, readdirSync, readSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { ErrorCode, GatewayError } from '../../../shared/errors.js';

// The tasks directory: one subdirectory per task id holding `run.json` (written right after an
// async accept, so run_id -> task_id -> agent never needs guessing), `result.json` (the durable
// result, readable after the run has left the agent API) and whatever artifacts the agent wrote.
// Both JSON files are replaced atomically (write a private temp file, fsync, rename).
// `.sessions/<bridge session id>.json` (never a task id: those start with a letter or digit) holds
// the Hermes session a bridge session continues once Hermes has rotated it (SessionRecord).

export const TASK_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
export const RUN_FILE = 'run.json';
export const RESULT_FILE = 'result.json';
export const SESSIONS_DIR = '.sessions';
export const TERMINAL = new Set(['completed', 'failed', 'cancelled', 'interrupted']);
/** The private temp name writeJsonAtomic gives a file before renaming it: `<name>.tmp-<pid>-<8 hex>`. */
const TEMP_FILE = /\.tmp-\d+-[0-9a-f]{8}$/;

/** True for the bridge's own in-flight temp files, which listings and artifacts never show. */
export function isBridgeTempFile(name: string): boolean {
  return TEMP_FILE.test(name);
}

export interface RunRecord {
  run_id: string;
  session_id: string;
  task_id: string;
  agent: string;
  agent_base_url: string;
  created_at: string;
  /** The bridge session (sessionIdFor) the run was sent in; `session_id` is the Hermes session it continued. */
  bridge_session_id?: string;
  /** sha256 of the task as submitted (taskFingerprint): a repeat with another task under the id is refused. */
  task_sha256?: string;
  /** The session history sent with the run (conversation_history): messages sent, older ones left out. */
  session_history?: { messages: number; omitted: number };
  /** Hermes answered the submission with a run it already had under the task id (Idempotency-Key replay). */
  replayed?: boolean;
}

/**
 * A bridge session that Hermes moved to another session id. Hermes' API server rotates the session
 * when its context compression ends the old one (compression.in_place: false) and names the
 * continuation in the chat completion's X-Hermes-Session-Id; the next call in the bridge session
 * must send that id, or Hermes would reload the ended, uncompressed transcript.
 */
export interface SessionRecord {
  /** The bridge's name for the session (sessionIdFor): gb-sess-<agent>-<session> or gb-task-<id>. */
  bridge_session_id: string;
  /** The Hermes session the next call continues. */
  hermes_session_id: string;
  /** The Hermes session it replaced, and the task whose turn rotated it. */
  rotated_from: string;
  task_id: string;
  updated_at: string;
}

/** sessionIdFor's ids (prefix, agent and session names, or a task id), as file names under SESSIONS_DIR. */
const BRIDGE_SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,239}$/;
/** A Hermes session id the bridge will send back as X-Hermes-Session-Id (Hermes caps the header at 256). */
export const HERMES_SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,255}$/;

export interface TaskResult {
  id: string;
  status: string;
  summary: string;
  artifacts: string[];
  next_steps: string[];
  details?: Record<string, unknown>;
}

export function newTaskId(): string {
  return `task-${new Date().toISOString().replace(/[-:]/g, '').replace(/\..*$/, '')}-${randomBytes(4).toString('hex')}`;
}

function checkId(id: string): void {
  if (!TASK_ID.test(id)) throw new GatewayError(ErrorCode.INVALID_ARGUMENTS, `task id must match ${TASK_ID.source}`);
}

export class TaskStore {
  /** run_id -> task_id for runs accepted by this process; older ones are found by a scan. */
  private readonly runs = new Map<string, string>();

  constructor(
    readonly dir: string,
    private readonly maxJsonBytes: number,
  ) {}

  taskDir(id: string): string {
    checkId(id);
    return join(this.dir, id);
  }

  /** The task's directory, created (0700) on demand; an existing non-directory or symlink is refused. */
  ensureTaskDir(id: string): string {
    const dir = this.taskDir(id);
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    try {
      mkdirSync(dir, { mode: 0o700 });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      if (!lstatSync(dir).isDirectory()) throw new GatewayError(ErrorCode.INVALID_PATH, `task ${id}: its path is not a plain directory`);
    }
    return dir;
  }

  /** The task directory if it exists as a real directory, else undefined. */
  existingTaskDir(id: string): string | undefined {
    const dir = this.taskDir(id);
    const stat = lstatSync(dir, { throwIfNoEntry: false });
    return stat?.isDirectory() ? dir : undefined;
  }

  /** The agent a task already belongs to (its run.json, else its result.json), if any. */
  ownerOf(id: string): string | undefined {
    const run = this.readRun(id);
    if (run) return run.agent;
    const agent = this.readResult(id)?.details?.agent;
    return typeof agent === 'string' ? agent : undefined;
  }

  writeRun(record: RunRecord): void {
    writeJsonAtomic(join(this.ensureTaskDir(record.task_id), RUN_FILE), record);
    this.runs.set(record.run_id, record.task_id);
  }

  readRun(id: string): RunRecord | undefined {
    const value = this.readJson(id, RUN_FILE) as RunRecord | undefined;
    return value && typeof value.run_id === 'string' && typeof value.agent === 'string' ? value : undefined;
  }

  writeResult(result: TaskResult): void {
    writeJsonAtomic(join(this.ensureTaskDir(result.id), RESULT_FILE), result);
  }

  readResult(id: string): TaskResult | undefined {
    const value = this.readJson(id, RESULT_FILE) as TaskResult | undefined;
    return value && typeof value === 'object' && typeof value.status === 'string' ? value : undefined;
  }

  /** The Hermes session `bridgeSessionId` continues: the last rotation recorded for it, else itself. */
  hermesSessionOf(bridgeSessionId: string): string {
    const record = this.readJsonAt(this.sessionFile(bridgeSessionId), `session ${bridgeSessionId}`) as SessionRecord | undefined;
    const id = record?.hermes_session_id;
    return typeof id === 'string' && HERMES_SESSION_ID.test(id) && !id.includes('..') ? id : bridgeSessionId;
  }

  /**
   * Follows a rotation: task `taskId` sent `bridgeSessionId`'s turn to Hermes session `sent`, and
   * Hermes says it continues in `reported` (a chat completion's X-Hermes-Session-Id, or what the
   * API server resolves an async run's session to). A different id that the bridge can send back
   * is recorded (durable before the task answers) and returned; anything else is not followed. The
   * move is compare-and-set: only from the session the bridge session continues now, so a late
   * answer about an older session (an async run polled after later tasks moved on) changes nothing.
   */
  followRotation(bridgeSessionId: string, sent: string, reported: string | undefined, taskId: string): string | undefined {
    if (reported === undefined || reported === sent || !HERMES_SESSION_ID.test(reported) || reported.includes('..')) return undefined;
    if (this.hermesSessionOf(bridgeSessionId) !== sent) return undefined;
    mkdirSync(join(this.dir, SESSIONS_DIR), { recursive: true, mode: 0o700 });
    const record: SessionRecord = { bridge_session_id: bridgeSessionId, hermes_session_id: reported, rotated_from: sent, task_id: taskId, updated_at: new Date().toISOString() };
    writeJsonAtomic(this.sessionFile(bridgeSessionId), record);
    return reported;
  }

  private sessionFile(bridgeSessionId: string): string {
    if (!BRIDGE_SESSION_ID.test(bridgeSessionId) || bridgeSessionId.includes('..')) throw new GatewayError(ErrorCode.INVALID_ARGUMENTS, `bridge session id must match ${BRIDGE_SESSION_ID.source} without ".."`);
    return join(this.dir, SESSIONS_DIR, `${bridgeSessionId}.json`);
  }

  /** The run.json naming `runId`: from this process's index, else by reading each task's run.json. */
  findRun(runId: string): RunRecord | undefined {
    const known = this.runs.get(runId);
    if (known) {
      const record = this.scanRun(known);
      if (record?.run_id === runId) return record;
    }
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      return undefined;
    }
    for (const name of names) {
      if (!TASK_ID.test(name)) continue;
      // One bad run.json (oversized, unreadable) must not hide every other run from hermes_status.
      const record = this.scanRun(name);
      if (record?.run_id === runId) {
        this.runs.set(runId, name);
        return record;
      }
    }
    return undefined;
  }

  /** `readRun`, but a file that cannot be used (oversized, unreadable, not a file) is no record: a scan skips it. */
  private scanRun(id: string): RunRecord | undefined {
    try {
      return this.readRun(id);
    } catch {
      return undefined;
    }
  }

  /**
   * A bridge JSON file of a task, size-capped; undefined when absent, not a regular file, a symlink
   * or not JSON. Opened with O_NOFOLLOW and judged by fstat on that descriptor, so what is checked
   * is what is read (no window between a path check and the read); O_NONBLOCK keeps a FIFO from
   * blocking the open. Oversized: FILE_TOO_LARGE.
   */
  private readJson(id: string, file: string): unknown {
    return this.readJsonAt(join(this.taskDir(id), file), `${file} of task ${id}`);
  }

  /** readJson for any bridge JSON file; `what` names it in errors. */
  private readJsonAt(path: string, what: string): unknown {
    let fd: number;
    try {
      fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ELOOP' || code === 'ENOTDIR') return undefined;
      throw new GatewayError(ErrorCode.FILE_NOT_FOUND, `${what} cannot be opened (${code ?? 'error'})`);
    }
    try {
      const stat = fstatSync(fd);
      if (!stat.isFile()) return undefined;
      if (stat.size > this.maxJsonBytes) throw new GatewayError(ErrorCode.FILE_TOO_LARGE, `${what} exceeds ${this.maxJsonBytes} bytes`);
      // One byte over the cap is enough to tell a file that grew after fstat.
      const buffer = Buffer.alloc(this.maxJsonBytes + 1);
      let length = 0;
      for (;;) {
        const n = readSync(fd, buffer, length, buffer.length - length, null);
        if (n === 0 || (length += n) === buffer.length) break;
      }
      if (length > this.maxJsonBytes) throw new GatewayError(ErrorCode.FILE_TOO_LARGE, `${what} exceeds ${this.maxJsonBytes} bytes`);
      return JSON.parse(buffer.subarray(0, length).toString('utf8'));
    } catch (e) {
      if (e instanceof GatewayError) throw e;
      return undefined;
    } finally {
      closeSync(fd);
    }
  }
}

/** Replaces `file` atomically with `value` as JSON (0600): readers see the old or the new file, never a part. */
export function writeJsonAtomic(file: string, value: unknown): void {
  const temp = `${file}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  const fd = openSync(temp, 'wx', 0o600);
  try {
    writeSync(fd, JSON.stringify(value, null, 2) + '\n');
    fsyncSync(fd);
  } catch (e) {
    closeSync(fd);
    rmSync(temp, { force: true });
    throw e;
  }
  closeSync(fd);
  renameSync(temp, file);
}
