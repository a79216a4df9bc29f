import { createHash } from 'node:crypto';
import { constants as fsConstants, type BigIntStats } from 'node:fs';
import { lstat, open, realpath, stat, type FileHandle } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { GatewayError, ErrorCode } from '../../../shared/errors.js';
import { limitText, type Limits } from '../../../shared/limits.js';
import type { GatewayConfig } from '../../platform/config.js';

// The four fixed Hermes startup files, read with bounded, no-follow reads, whole or not at all. The
// file set is fixed (the project file is found where Hermes finds it, see findHermesMd); each file
// is opened with O_NOFOLLOW and judged by fstat of the open descriptor (type and size) before a
// single byte is read. The text is returned as it is on disk: the pipeline redacts it.

type StartupFileName = '.hermes.md' | 'SOUL.md' | 'MEMORY.md' | 'USER.md';

export interface StartupFile {
  name: StartupFileName;
  path: string;
  present: boolean;
  bytes?: number;
  /** Hex sha256 of the raw bytes on disk (before redaction). */
  sha256?: string;
  /** ISO 8601 modification time. */
  mtime?: string;
  mtime_ms?: number;
  /** The UTF-8 text (redacted by the pipeline on its way to a client). */
  content?: string;
}

export interface StartupContext {
  files: StartupFile[];
  total_bytes: number;
}

export type StartupConfig = Pick<GatewayConfig, 'hermesHome' | 'projectDir' | 'limits'>;

interface FileSpec {
  name: StartupFileName;
  path: string;
  required: boolean;
  /** Lives under `$HERMES_HOME/memories`, which must itself be a real directory. */
  inMemories: boolean;
}

interface Opened {
  spec: FileSpec;
  handle: FileHandle;
  stat: BigIntStats;
}

// O_NONBLOCK keeps open() of a FIFO from waiting for a writer; fstat then refuses it as not regular.
const OPEN_FLAGS = fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW | (fsConstants.O_NONBLOCK ?? 0);

const HERMES_MD_NAMES = ['.hermes.md', 'HERMES.md'] as const;

async function isFileFollowing(path: string): Promise<boolean> {
  return stat(path).then(
    (st) => st.isFile(),
    () => false,
  );
}

/**
 * Where Hermes reads the project file (agent/prompt_builder.py `_find_hermes_md`): `.hermes.md` or
 * `HERMES.md` in the project directory, then in each parent up to and including the git root (the
 * nearest directory holding `.git`); without a git root only the project directory itself. The
 * first match wins; with none, the project directory's `.hermes.md` (reported absent).
 */
async function findHermesMd(projectDir: string): Promise<string> {
  const start = await realpath(projectDir).catch(() => resolve(projectDir));
  const chain: string[] = [];
  for (let dir = start; ; dir = dirname(dir)) {
    chain.push(dir);
    if (dirname(dir) === dir) break;
  }
  let gitRoot: string | undefined;
  for (const dir of chain) {
    if (await lstat(join(dir, '.git')).then(() => true, () => false)) {
      gitRoot = dir;
      break;
    }
  }
  const searched = gitRoot === undefined ? [start] : chain.slice(0, chain.indexOf(gitRoot) + 1);
  for (const dir of searched) {
    for (const name of HERMES_MD_NAMES) if (await isFileFollowing(join(dir, name))) return join(dir, name);
  }
  return join(start, '.hermes.md');
}

async function fileSpecs(config: StartupConfig): Promise<FileSpec[]> {
  const memories = join(config.hermesHome, 'memories');
  return [
    { name: '.hermes.md', path: await findHermesMd(config.projectDir), required: false, inMemories: false },
    { name: 'SOUL.md', path: join(config.hermesHome, 'SOUL.md'), required: true, inMemories: false },
    { name: 'MEMORY.md', path: join(memories, 'MEMORY.md'), required: false, inMemories: true },
    { name: 'USER.md', path: join(memories, 'USER.md'), required: false, inMemories: true },
  ];
}

function errnoOf(e: unknown): string | undefined {
  return typeof e === 'object' && e !== null && 'code' in e ? String((e as NodeJS.ErrnoException).code) : undefined;
}

/** `{dev, ino}` of the memories directory, `null` when absent; refuses a symlink or non-directory. */
async function checkMemoriesDir(dir: string): Promise<{ dev: bigint; ino: bigint } | null> {
  let st: BigIntStats;
  try {
    st = await lstat(dir, { bigint: true });
  } catch (e) {
    if (errnoOf(e) === 'ENOENT') return null;
    throw new GatewayError(ErrorCode.STARTUP_FILE_UNREADABLE, `cannot inspect startup directory ${dir} (holding MEMORY.md and USER.md): ${(e as Error).message}`);
  }
  if (st.isSymbolicLink()) {
    throw new GatewayError(
      ErrorCode.STARTUP_FILE_SYMLINK,
      `startup directory ${dir} (holding MEMORY.md and USER.md) is a symlink; startup files are read without following symlinks`,
    );
  }
  if (!st.isDirectory()) {
    throw new GatewayError(ErrorCode.STARTUP_FILE_NOT_REGULAR, `startup directory ${dir} (holding MEMORY.md and USER.md) is not a directory`);
  }
  return { dev: st.dev, ino: st.ino };
}

/** Opens one file without following a symlink and judges it by fstat; `null` when absent. */
async function openChecked(spec: FileSpec, limits: Limits): Promise<Opened | null> {
  let handle: FileHandle;
  try {
    handle = await open(spec.path, OPEN_FLAGS);
  } catch (e) {
    const code = errnoOf(e);
    if (code === 'ENOENT') {
      if (!spec.required) return null;
      throw new GatewayError(
        ErrorCode.STARTUP_FILE_MISSING,
        `required startup file ${spec.name} is missing at ${spec.path}; Hermes seeds SOUL.md on first run, so HERMES_HOME is missing or broken`,
      );
    }
    if (code === 'ELOOP' || code === 'EMLINK') {
      throw new GatewayError(ErrorCode.STARTUP_FILE_SYMLINK, `startup file ${spec.name} at ${spec.path} is a symlink; startup files are read without following symlinks`);
    }
    if (code === 'ENXIO' || code === 'ENOTDIR') {
      throw new GatewayError(ErrorCode.STARTUP_FILE_NOT_REGULAR, `startup file ${spec.name} at ${spec.path} is not a regular file (${code})`);
    }
    throw new GatewayError(ErrorCode.STARTUP_FILE_UNREADABLE, `cannot open startup file ${spec.name} at ${spec.path}: ${(e as Error).message}`);
  }
  try {
    const stat = await handle.stat({ bigint: true });
    if (!stat.isFile()) {
      throw new GatewayError(ErrorCode.STARTUP_FILE_NOT_REGULAR, `startup file ${spec.name} at ${spec.path} is not a regular file`);
    }
    if (stat.size > BigInt(limits.startupMaxFileBytes)) {
      throw new GatewayError(
        ErrorCode.STARTUP_FILE_TOO_LARGE,
        `startup file ${spec.name} at ${spec.path} is ${stat.size} bytes, above ${limitText(limits, 'startupMaxFileBytes')}; nothing was read`,
      );
    }
    return { spec, handle, stat };
  } catch (e) {
    await handle.close().catch(() => undefined);
    throw e;
  }
}

async function readExactly(opened: Opened): Promise<Buffer> {
  const size = Number(opened.stat.size);
  const buffer = Buffer.alloc(size);
  let offset = 0;
  while (offset < size) {
    const { bytesRead } = await opened.handle.read(buffer, offset, size - offset, offset);
    if (bytesRead === 0) break;
    offset += bytesRead;
  }
  const after = await opened.handle.stat({ bigint: true });
  if (offset !== size || after.size !== opened.stat.size || after.mtimeNs !== opened.stat.mtimeNs) {
    throw new GatewayError(
      ErrorCode.STARTUP_FILE_CHANGED,
      `startup file ${opened.spec.name} at ${opened.spec.path} changed while being read (size ${opened.stat.size} -> ${after.size} bytes, ${offset} read); retry`,
    );
  }
  return buffer;
}

function decodeUtf8(bytes: Buffer, spec: FileSpec): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new GatewayError(ErrorCode.STARTUP_FILE_INVALID_UTF8, `startup file ${spec.name} at ${spec.path} is not valid UTF-8; startup files must be UTF-8 text`);
  }
}

export async function readStartupContext(config: StartupConfig): Promise<StartupContext> {
  const { limits } = config;
  const specs = await fileSpecs(config);
  const memoriesDir = join(config.hermesHome, 'memories');
  const opened: Opened[] = [];
  try {
    // Phase 1: open and fstat all four files; nothing is read until every one passed its checks.
    const memoriesBefore = await checkMemoriesDir(memoriesDir);
    const present = new Map<StartupFileName, Opened>();
    for (const spec of specs) {
      if (spec.inMemories && memoriesBefore === null) continue;
      const o = await openChecked(spec, limits);
      if (o) {
        opened.push(o);
        present.set(spec.name, o);
      }
    }
    if (memoriesBefore !== null) {
      // The directory was judged by path before the files were opened through it: make sure it was
      // not swapped for a symlink (or another directory) in between.
      const memoriesAfter = await checkMemoriesDir(memoriesDir);
      if (memoriesAfter === null || memoriesAfter.dev !== memoriesBefore.dev || memoriesAfter.ino !== memoriesBefore.ino) {
        throw new GatewayError(ErrorCode.STARTUP_FILE_CHANGED, `startup directory ${memoriesDir} changed while the startup files were opened; retry`);
      }
    }

    // Phase 2: the total budget, still before reading any content.
    const total = opened.reduce((sum, o) => sum + Number(o.stat.size), 0);
    if (total > limits.startupMaxTotalBytes) {
      const sizes = opened.map((o) => `${o.spec.name} ${o.stat.size}`).join(', ');
      throw new GatewayError(
        ErrorCode.STARTUP_FILE_TOO_LARGE,
        `startup files total ${total} bytes (${sizes}), above ${limitText(limits, 'startupMaxTotalBytes')}; nothing was read`,
      );
    }

    // Phase 3: read exactly the fstat size, detect changes, validate, hash.
    const files: StartupFile[] = [];
    for (const spec of specs) {
      const o = present.get(spec.name);
      if (!o) {
        files.push({ name: spec.name, path: spec.path, present: false });
        continue;
      }
      const bytes = await readExactly(o);
      const text = decodeUtf8(bytes, spec);
      const mtimeMs = Number(o.stat.mtimeNs / 1_000_000n);
      files.push({
        name: spec.name,
        path: spec.path,
        present: true,
        bytes: bytes.length,
        sha256: createHash('sha256').update(bytes).digest('hex'),
        mtime: new Date(mtimeMs).toISOString(),
        mtime_ms: mtimeMs,
        content: text,
      });
    }
    return { files, total_bytes: total };
  } finally {
    await Promise.all(opened.map((o) => o.handle.close().catch(() => undefined)));
  }
}

