import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { RawFields, Rules } from './honcho-fields.js';

// The Honcho session Hermes uses for a project directory (client.py resolve_session_name), which
// the gateway's memory tools read and write as Hermes would.

/** The name of the git repository `dir` is in (its top level's name), as `git rev-parse --show-toplevel` finds it. */
function gitRepoName(dir: string): string | undefined {
  for (let d = resolve(dir); ; d = dirname(d)) {
    if (existsSync(join(d, '.git'))) return basename(d);
    if (dirname(d) === d) return undefined;
  }
}

/** Honcho's longest session id, and the hash Hermes ends a longer one with (client.py _HONCHO_SESSION_ID_MAX_LEN, _HONCHO_SESSION_ID_HASH_LEN). */
const SESSION_ID_MAX = 100;
const SESSION_ID_HASH = 8;

/**
 * `name` cut to Honcho's 100 characters the way Hermes cuts it (client.py _enforce_session_id_limit):
 * unchanged when it fits, else its first 91 characters without trailing `-`, `-`, and the first 8 hex
 * digits of the SHA-256 of `original`. Characters are counted as Python counts them (code points).
 */
function enforceSessionIdLimit(name: string, original: string): string {
  const chars = Array.from(name);
  if (chars.length <= SESSION_ID_MAX) return name;
  const digest = createHash('sha256').update(original, 'utf8').digest('hex').slice(0, SESSION_ID_HASH);
  return `${chars
    .slice(0, SESSION_ID_MAX - SESSION_ID_HASH - 1)
    .join('')
    .replace(/-+$/, '')}-${digest}`;
}

/**
 * The Honcho session Hermes uses in `cwd` when no gateway session key, Hermes session id or title
 * applies (client.py HonchoClientConfig.resolve_session_name, then session.py's id sanitizing):
 * the `sessions` map entry for the directory, else per-repo: the git repository's name, per-directory
 * (the default; per-session without a session id too): the directory's name, each prefixed with
 * `<peerName>-` under sessionPeerPrefix; any other strategy (global): the workspace. Only a gateway
 * session key (which the gateway never has) is cut to 100 characters here: a long directory name is
 * not, in any version. From 0.21.3 (read from upstream's client.py resolve_session_name, not run),
 * sessionAiPeerPrefix prefixes whichever of these applies with the assistant peer (`aiPeer`, default
 * the host; runs of other characters made one `-`, `-` trimmed), and that name is cut to 100.
 */
export function sessionName(fields: RawFields, host: string, cwd: string, rules: Rules): string {
  const prefixed = (base: string) => (fields.sessionPeerPrefix && fields.peerName ? `${fields.peerName}-${base}` : base);
  let name: string;
  const manual = fields.sessions[cwd];
  if (manual) name = manual;
  else if (fields.sessionStrategy === 'per-repo') name = prefixed(gitRepoName(cwd) ?? basename(cwd));
  else if (fields.sessionStrategy === 'per-directory' || fields.sessionStrategy === 'per-session') name = prefixed(basename(cwd));
  else name = fields.workspace;
  if (rules.sessionAiPeerPrefix && fields.sessionAiPeerPrefix) {
    const ai = (fields.aiPeer ?? host).replace(/[^a-zA-Z0-9_-]+/g, '-').replace(/^-+|-+$/g, '');
    if (ai) name = enforceSessionIdLimit(`${ai}-${name}`, `${ai}-${name}`);
  }
  return (name || 'hermes-default').replace(/[^a-zA-Z0-9_-]/g, '-');
}
