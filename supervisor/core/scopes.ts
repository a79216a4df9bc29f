import { ErrorCode, GatewayError } from '../../shared/errors.js';

// The two scopes a credential can carry. `hermes:read` is what an assistant needs to look around
// without changing anything: discovery, the startup context, memory and skills reads, file reads and
// searches, past-session search, job status and the process list. `hermes:full` is everything.
// A tool is judged by name (and, for process_manage, by its action) before it runs; anything not
// listed as read-only needs the full scope, so a new tool is never readable by accident.

export const SCOPE_READ = 'hermes:read';
export const SCOPE_FULL = 'hermes:full';
export const SCOPES = [SCOPE_READ, SCOPE_FULL] as const;
export type Scope = (typeof SCOPES)[number];

const READ_ONLY_TOOLS = new Set([
  // discovery (tool_call is judged by the tool it forwards to)
  'tool_search',
  'tool_describe',
  'tool_call',
  // startup, memory and skills reads
  'startup_context',
  'memory_context',
  'memory_search',
  'memory_profile',
  'memory_reasoning',
  'skills_list',
  'skill_view',
  // files and history
  'read_file',
  'search_files',
  'session_search',
  // continuity (a capability session holds nothing until a full-scope tool uses it), jobs, processes
  'session_open',
  'session_close',
  'job_status',
]);

/** Read-only only for some arguments: process_manage lists processes read-only, everything else acts on them. */
const READ_ONLY_ACTIONS: Readonly<Record<string, readonly string[]>> = { process_manage: ['list'] };

/** What a call is authorized by: absent on a gateway without authentication (everything allowed). */
export interface Grant {
  /** `oauth`, `static` (a named bearer token). */
  kind: 'oauth' | 'static';
  /** The OAuth client id or the static token's name: what audit lines say. */
  principal: string;
  scopes: readonly string[];
  /**
   * The credential itself, as a key that is never the secret: `static:<name>` for a static token,
   * `oauth-token:<sha256>` for an OAuth access token (a digest of the token: every token, including
   * one a refresh issues, is a credential of its own, even for one client).
   */
  credential: string;
}

/** One credential, as a stable key: what a session or a capability token is bound to. */
export function principalKey(grant: Grant): string {
  return `${grant.kind}:${grant.principal}`;
}

export function scopeNeeded(tool: string, args: unknown): Scope {
  if (READ_ONLY_TOOLS.has(tool)) return SCOPE_READ;
  const actions = READ_ONLY_ACTIONS[tool];
  const action = (args as { action?: unknown } | null | undefined)?.action;
  if (actions && typeof action === 'string' && actions.includes(action)) return SCOPE_READ;
  return SCOPE_FULL;
}

function grants(grant: Grant, scope: Scope): boolean {
  return grant.scopes.includes(SCOPE_FULL) || (scope === SCOPE_READ && grant.scopes.includes(SCOPE_READ));
}

/** Throws SCOPE_INSUFFICIENT (naming the scope it needs) unless `grant` allows `tool` with `args`. */
export function assertScope(grant: Grant, tool: string, args: unknown): void {
  const needed = scopeNeeded(tool, args);
  if (grants(grant, needed)) return;
  throw new GatewayError(
    ErrorCode.SCOPE_INSUFFICIENT,
    `${tool} needs the ${needed} scope; this credential (${grant.kind} ${grant.principal}) has ${grant.scopes.join(' ') || 'no scope'}`,
    { required_scope: needed },
  );
}

/** The scope list of a space-separated scope string, keeping only ours. */
export function parseScopes(text: string | undefined): Scope[] {
  return (text ?? '').split(/\s+/).filter((s): s is Scope => (SCOPES as readonly string[]).includes(s));
}
