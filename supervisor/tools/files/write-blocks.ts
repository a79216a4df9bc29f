import { homedir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { ErrorCode, GatewayError } from '../../../shared/errors.js';
import { isUnder, type UserPath } from './paths.js';
import { authFiles, checkedPath, either, NOT_A_BOUNDARY, type CheckedPath, type HermesDirs } from './sensitive-paths.js';

// Hermes' write-side file-safety rules (tools/file_tools.py, agent/file_safety.py; sensitive-paths.ts
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

function crossProfileMessage(p: CheckedPath, dirs: HermesDirs): string | null {
  const target = p.real;
  if (isUnder(target, dirs.root) && target !== dirs.root) {
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

/** Every write-side rule for one target; throws FILE_BLOCKED on the first refusal. */
export async function assertWritable(p: UserPath & { real?: string }, dirs: HermesDirs, crossProfile: boolean, verb = 'Write'): Promise<CheckedPath> {
  const checked = await checkedPath(p);
  const message = writeBlockMessage(checked, p.input, dirs, verb);
  if (message) throw new GatewayError(ErrorCode.FILE_BLOCKED, message, { reason: 'sensitive_path' });
  if (!crossProfile) {
    const warning = crossProfileMessage(checked, dirs);
    if (warning) throw new GatewayError(ErrorCode.FILE_BLOCKED, warning, { reason: 'cross_profile' });
  }
  return checked;
}
