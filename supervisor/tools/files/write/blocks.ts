import { homedir } from 'node:os';
import { extname, join, relative, sep } from 'node:path';
import { ErrorCode, GatewayError } from '../../../../shared/errors.js';
import { authFiles, checkedPath, type CheckedPath, either, type HermesDirs, isUnder, NOT_A_BOUNDARY, type UserPath } from '../access/index.js';

// Hermes' write-side file-safety rules (tools/file_tools.py, agent/file_safety.py; access/rules.ts
// has the read side and what both share): system prefixes, docker.sock, the Hermes config/auth/.env
// files, the credential deny list, Hermes session/token state and the gateway's own authentication
// files, then the cross-profile / sandbox-mirror soft guard that `cross_profile: true` opts out of.

// ---------------------------------------------------------------------------------------------
// Write blocks

const SENSITIVE_PREFIXES = ['/etc/', '/boot/', '/usr/lib/systemd/', '/private/etc/', '/private/var/'];
const SENSITIVE_EXACT = new Set(['/var/run/docker.sock', '/run/docker.sock']);

function writeDeniedExact(dirs: HermesDirs): string[] {
  const home = homedir();
  const out = [
    join(home, '.ssh', 'authorized_keys'),
    join(home, '.ssh', 'id_rsa'),
    join(home, '.ssh', 'id_ed25519'),
    join(home, '.netrc'),
    join(home, '.pgpass'),
    join(home, '.npmrc'),
    join(home, '.pypirc'),
    join(home, '.git-credentials'),
    '/etc/sudoers',
    '/etc/passwd',
    '/etc/shadow',
  ];
  for (const hd of dirs.dirs) {
    out.push(join(hd, '.env'), join(hd, 'auth.json'), join(hd, '.anthropic_oauth.json'), join(hd, 'cache', 'bws_cache.enc.json'), join(hd, 'state.db'));
  }
  out.push(...authFiles(dirs));
  return out;
}

function writeDeniedPrefixes(dirs: HermesDirs): string[] {
  const home = homedir();
  const out = [
    join(home, '.ssh'),
    join(home, '.aws'),
    join(home, '.gnupg'),
    join(home, '.kube'),
    '/etc/sudoers.d',
    '/etc/systemd',
    join(home, '.docker'),
    join(home, '.azure'),
    join(home, '.config', 'gh'),
    join(home, '.config', 'gcloud'),
  ];
  for (const hd of dirs.dirs) out.push(join(hd, 'sessions'), join(hd, 'mcp-tokens'), join(hd, 'pairing'));
  return out;
}

/**
 * Hermes `_check_sensitive_path` + `get_write_denied_error`: the refusal message for writing (or
 * deleting/moving) `p`, or null. `verb` names the operation in the credential message.
 */
function writeBlockMessage(p: CheckedPath, input: string, dirs: HermesDirs, verb = 'Write'): string | null {
  if (either(p, (c) => SENSITIVE_PREFIXES.some((prefix) => c.startsWith(prefix)) || SENSITIVE_EXACT.has(c))) {
    return `Refusing to write to sensitive system path: ${input}\nUse the terminal tool with sudo if you need to modify system files.`;
  }
  for (const hd of dirs.dirs) {
    const config = join(hd, 'config.yaml');
    if (either(p, (c) => c === config)) {
      return (
        `Refusing to write to Hermes config file: ${input}\n` +
        "Agent cannot modify security-sensitive configuration. Edit ~/.hermes/config.yaml directly or use 'hermes config' instead."
      );
    }
  }
  const exact = writeDeniedExact(dirs);
  const prefixes = writeDeniedPrefixes(dirs);
  if (either(p, (c) => exact.includes(c) || prefixes.some((prefix) => isUnder(c, prefix)))) {
    return `${verb} denied: '${input}' is a protected system/credential file.`;
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// Cross-profile / sandbox-mirror soft guard

/** The `cross_profile` argument of write_file and patch (Hermes' schema text), which opts out of this guard. */
export const CROSS_PROFILE_PROPERTY = {
  type: 'boolean',
  default: false,
  description:
    "Opt out of the cross-profile soft guard. Defaults to false. Set true ONLY after explicit user direction to edit another Hermes profile's skills/plugins/cron/memories.",
} as const;

const PROFILE_SCOPED_AREAS = new Set(['skills', 'plugins', 'cron', 'memories']);

function crossProfileMessage(p: CheckedPath, dirs: HermesDirs, profiles: boolean): string | null {
  const target = p.real;
  if (profiles && isUnder(target, dirs.root) && target !== dirs.root) {
    const parts = relative(dirs.root, target).split(sep);
    let targetProfile: string | null = null;
    let area: string | null = null;
    if (parts[0] !== undefined && PROFILE_SCOPED_AREAS.has(parts[0])) {
      targetProfile = 'default';
      area = parts[0];
    } else if (parts[0] === 'profiles' && parts.length >= 3 && PROFILE_SCOPED_AREAS.has(parts[2]!)) {
      targetProfile = parts[1]!;
      area = parts[2]!;
    }
    if (targetProfile !== null && targetProfile !== dirs.activeProfile) {
      return (
        `Cross-profile write blocked by soft guard: ${target} belongs to Hermes profile '${targetProfile}', ` +
        `but the agent is running under profile '${dirs.activeProfile}'. Editing another profile's ${area}/ will affect that ` +
        "profile's future sessions, not the one you are currently in. Confirm with the user before proceeding. " +
        `To bypass this guard after explicit user direction, retry the call with cross_profile=true. ${NOT_A_BOUNDARY}`
      );
    }
  }
  // `…/sandboxes/<backend>/<task>/home/.hermes/<x>`: a per-task mirror the host never reads.
  const parts = target.split(sep);
  for (let i = 0; i < parts.length; i++) {
    if (parts[i] === 'sandboxes' && i + 5 < parts.length && parts[i + 3] === 'home' && parts[i + 4] === '.hermes') {
      const mirrorRoot = parts.slice(0, i + 5).join(sep);
      const inner = parts.slice(i + 5).join(sep);
      return (
        `Sandbox-mirror write blocked by soft guard: ${target} sits under '${mirrorRoot}', which is a per-task mirror ` +
        'created by a non-local terminal backend (docker/daytona/etc.). Writes here land on a copy that the host Hermes ' +
        `process never reads — the authoritative file is likely '${inner}' under the real HERMES_HOME. To bypass this guard ` +
        `after explicit user direction, retry the call with cross_profile=true. ${NOT_A_BOUNDARY}`
      );
    }
  }
  return null;
}

/**
 * Every write-side rule for one target; throws FILE_BLOCKED on the first refusal. `noProfileGuard`:
 * the Hermes followed dropped the cross-profile guard (0.22: profiles are not isolated), keeping
 * only the sandbox-mirror one that `cross_profile` opts out of.
 */
export async function assertWritable(p: UserPath & { real?: string }, dirs: HermesDirs, crossProfile: boolean, verb = 'Write', noProfileGuard = false): Promise<CheckedPath> {
  const checked = await checkedPath(p);
  const message = writeBlockMessage(checked, p.input, dirs, verb);
  if (message) throw new GatewayError(ErrorCode.FILE_BLOCKED, message, { reason: 'sensitive_path' });
  if (!crossProfile) {
    const warning = crossProfileMessage(checked, dirs, !noProfileGuard);
    if (warning) throw new GatewayError(ErrorCode.FILE_BLOCKED, warning, { reason: 'cross_profile' });
  }
  return checked;
}

// ---------------------------------------------------------------------------------------------
// Hermes 0.22's further write guards (tools/file_tools_write_guards.py), applied to write_file and
// patch when the Hermes followed has them (release.ts fileWriteDocumentGuards,
// fileWriteProtectedInstructions, fileWriteSshConfigApproval).

/** tools/binary_extensions.py OPAQUE_DOCUMENT_EXTENSIONS: containers a text write can only corrupt. */
const OPAQUE_DOCUMENT_EXTENSIONS = new Set([
  '.doc', '.docx', '.docm', '.xls', '.xlsx', '.xlsm', '.xlsb',
  '.ppt', '.pps', '.pot', '.pptx', '.pptm', '.ppsx', '.ppsm',
  '.odt', '.ods', '.odp', '.rtf', '.epub',
]);
const SQLITE_EXTENSIONS = new Set(['.db', '.sqlite', '.sqlite3']);
const SQLITE_SIDECAR_MARKERS = ['-wal', '-shm', '-journal'];

/** binary_extensions `_lower_suffix`: the lower-cased text from the path's last dot ("" without one). */
function lowerSuffix(p: string): string {
  const dot = p.lastIndexOf('.');
  return dot === -1 ? '' : p.slice(dot).toLowerCase();
}

/** binary_extensions `_strip_sidecar_marker`: `.db-wal` -> `.db`; null when not a SQLite sidecar. */
function sidecarBase(suffix: string): string | null {
  for (const marker of SQLITE_SIDECAR_MARKERS) {
    if (suffix.endsWith(marker) && SQLITE_EXTENSIONS.has(suffix.slice(0, -marker.length))) return suffix.slice(0, -marker.length);
  }
  return null;
}

/**
 * Hermes `_check_binary_document_write`: opaque documents and SQLite sidecars are never written as
 * text; an existing PDF or file with a binary extension is not overwritten. `exists`: a regular
 * file is at the path now.
 */
export function binaryDocumentRefusal(input: string, exists: boolean, binaryExtension: (p: string) => boolean): string | null {
  const suffix = lowerSuffix(input);
  const ext = extname(input).toLowerCase();
  const effective = sidecarBase(suffix) ?? suffix;
  if (OPAQUE_DOCUMENT_EXTENSIONS.has(effective)) {
    return (
      `Refusing to write plain text to binary document '${input}' (${ext}). A text write cannot produce a valid document container and would ` +
      'corrupt the file (read_file showed you EXTRACTED text, not the real bytes). Use the docx/xlsx/powerpoint skills or a library like ' +
      'python-docx/openpyxl/python-pptx via the terminal to create or edit this document.'
    );
  }
  if (sidecarBase(suffix) !== null) {
    return (
      `Refusing to write plain text to binary SQLite sidecar '${input}' (${ext}). A -wal/-shm/-journal file holds raw database pages that SQLite ` +
      'reads on the next open; text there corrupts the database. Use the sqlite3 CLI or a SQLite library via the terminal to modify the database instead.'
    );
  }
  const pdf = input.toLowerCase().endsWith('.pdf');
  if (!exists || !(pdf || binaryExtension(input))) return null;
  if (pdf) {
    return (
      `Refusing to overwrite existing PDF '${input}' with plain text. read_file showed you EXTRACTED text, not the real bytes — writing ` +
      'text back would destroy the document. Use the pdf skill or a PDF library via the terminal to modify it. (Creating a NEW .pdf file is allowed.)'
    );
  }
  return (
    `Refusing to overwrite existing binary file '${input}' (${ext}) with plain text — read_file showed you extracted or mojibake text, not the ` +
    'real bytes, and writing text back would destroy the file. Use a binary-aware tool via the terminal to modify it (for SQLite databases, ' +
    'the sqlite3 CLI or a SQLite library). (Creating a NEW file with this extension is allowed.)'
  );
}

/** `_PROTECTED_INSTRUCTION_BASENAMES`: files that steer future agents, in any directory, any case. */
const PROTECTED_INSTRUCTION_BASENAMES = new Set(['agents.md', 'claude.md', 'soul.md', '.cursorrules']);

/** Python `fnmatch.fnmatch` on lower-cased names (`*`, `?`, `[...]`). */
function fnmatch(name: string, pattern: string): boolean {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*') re += '.*';
    else if (c === '?') re += '.';
    else if (c === '[') {
      const close = pattern.indexOf(']', i + 2);
      if (close === -1) re += '\\[';
      else {
        let body = pattern.slice(i + 1, close).replace(/\\/g, '\\\\');
        if (body.startsWith('!')) body = '^' + body.slice(1);
        re += `[${body}]`;
        i = close;
      }
    } else re += c.replace(/[.+^${}()|\\\]]/g, '\\$&');
  }
  return new RegExp(`^${re}$`, 's').test(name);
}

/** `security.protected_instruction_files` (default on) and `security.protected_instruction_extra_patterns` from Hermes' config.yaml. */
export function protectedInstructionConfig(doc: Record<string, unknown> | undefined): { enabled: boolean; extra: string[] } {
  const security = doc?.security;
  if (typeof security !== 'object' || security === null || Array.isArray(security)) return { enabled: true, extra: [] };
  const s = security as Record<string, unknown>;
  const enabled = typeof s.protected_instruction_files === 'boolean' ? s.protected_instruction_files : true;
  const extra = Array.isArray(s.protected_instruction_extra_patterns) ? s.protected_instruction_extra_patterns.filter((p) => p !== null && p !== '' && p !== undefined).map(String) : [];
  return { enabled, extra };
}

/**
 * Hermes `_protected_instruction_reason`: the label of a protected agent-instruction target (its
 * base name, or the whole path of a file directly under a project `.hermes/`), or null. Hermes'
 * own home (and root) is exempt: its files have their own guards.
 */
export function protectedInstructionReason(p: CheckedPath, dirs: HermesDirs, extra: readonly string[]): string | null {
  for (const home of new Set([dirs.home, dirs.root])) if (isUnder(p.real, home)) return null;
  for (const candidate of [p.lexical, p.real]) {
    const base = candidate.slice(candidate.lastIndexOf('/') + 1);
    const lower = base.toLowerCase();
    if (PROTECTED_INSTRUCTION_BASENAMES.has(lower) || extra.some((pattern) => fnmatch(lower, pattern.toLowerCase()))) return base;
    const parts = candidate.replace(/\/+$/, '').split('/');
    if (parts.length >= 2 && parts[parts.length - 2] === '.hermes') return candidate;
  }
  return null;
}

/** Hermes' refusal of a protected-instruction write without a human to approve it (`_request_protected_instruction_approval`, no channel). */
export function protectedInstructionRefusal(labels: readonly string[]): string {
  const targets = [...new Set(labels)].join(', ');
  return (
    `BLOCKED: write to protected agent-instruction file(s) (${targets}) requires approval but no interactive user or gateway is present to approve it. ` +
    'The user has NOT consented to this write. Do NOT retry it or attempt the same edit via another path (terminal, execute_code, etc.).'
  );
}

/** Hermes `is_write_approval_required` (agent/file_safety.py `build_write_approval_paths`): the SSH client config. */
export function sshConfigRefusal(inputs: ReadonlyArray<{ input: string; checked: CheckedPath }>): string | null {
  const config = join(homedir(), '.ssh', 'config');
  const targets = inputs.filter(({ checked }) => either(checked, (c) => c === config)).map(({ input }) => input);
  if (targets.length === 0) return null;
  return (
    `BLOCKED: write to SSH config file(s) (${[...new Set(targets)].join(', ')}) requires approval but no interactive user or gateway is present to approve it. ` +
    'Do NOT retry it via another path (terminal, execute_code) without the user\'s explicit consent.'
  );
}
