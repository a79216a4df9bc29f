import { accessSync, constants, existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import * as v from 'valibot';
import { ErrorCode, GatewayError } from '../../../shared/errors.js';
import { ResourcePolicySchema, type ResourceLimits, type ResourcePolicy } from '../../../policy/resource-policy.js';
import { enableCgroupControllers } from './cgroup-limits.js';
import { detectSystemdScope } from './systemd-scope.js';

// The host resource policy, loaded once at startup.
//
// - Unset (HERMES_MCP_RESOURCE_POLICY empty): development mode. Nothing is enforced, the legacy
//   job quotas still apply, and /readyz.job_admission says "development" so nobody mistakes it for
//   production protection.
// - Set and valid: enforced. Jobs get their profile's limits through systemd user scopes when a
//   user manager answers, else through direct cgroup v2 directories when a delegated cgroup tree
//   is writable, else the policy cannot be enforced and jobs are refused with that reason. Short
//   execute_code workers follow the same rule with the short_workers limits: a systemd scope under
//   hermesshort.slice, else a direct cgroup, else execute_code is refused too (fail closed, never
//   an unscoped worker under a policy that claims to limit it).
// - Set but missing, unreadable, world-writable, owned by someone else or invalid: failed. The
//   gateway fails closed: no job and no short worker starts, and /readyz says why. The control plane
//   stays ready (a resource outage must not make the tunnel reconnect in a loop).

type ResourceMode = 'development' | 'enforced' | 'failed';
type Enforcement = 'systemd' | 'cgroup' | 'none';

export interface ResourceState {
  mode: ResourceMode;
  path?: string;
  policy?: ResourcePolicy;
  enforcement: Enforcement;
  /** Where direct cgroup limits are created (enforcement 'cgroup'). */
  cgroupRoot?: string;
  reason: string;
}

const CGROUP_CONTROLLERS = ['memory', 'pids', 'cpu'];

/** Reads and validates the policy file; a GatewayError(RESOURCE_POLICY_INVALID) says what is wrong. */
export function readResourcePolicy(path: string): ResourcePolicy {
  const fail = (why: string): never => {
    throw new GatewayError(ErrorCode.RESOURCE_POLICY_INVALID, `resource policy ${path}: ${why}`);
  };
  let st;
  try {
    st = statSync(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return fail(code === 'ENOENT' ? 'missing' : `unreadable (${code})`);
  }
  if (!st.isFile()) fail('not a regular file');
  // Writable by others means anyone on the host could lift the limits: refuse rather than trust it.
  if (st.mode & 0o002) fail(`world-writable (mode ${(st.mode & 0o777).toString(8)}); chmod o-w it`);
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== 0 && st.uid !== uid) fail(`owned by uid ${st.uid}, neither root nor the gateway's user`);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    return fail(`unreadable (${(e as NodeJS.ErrnoException).code})`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    return fail(`invalid JSON: ${(e as Error).message}`);
  }
  const parsed = v.safeParse(ResourcePolicySchema, raw);
  if (!parsed.success) {
    const issues = parsed.issues.slice(0, 5).map((i) => `${v.getDotPath(i) ?? '(root)'}: ${i.message}`);
    fail(`does not match the schema (policy/resource-policy.ts): ${issues.join('; ')}`);
  }
  return (parsed as v.SafeParseResult<typeof ResourcePolicySchema> & { success: true }).output;
}

/** Whether `root` is a cgroup v2 directory we may create limited children in. */
export function probeCgroupRoot(root: string | undefined): { ok: boolean; reason: string } {
  // Only an explicitly delegated directory: the kernel refuses to enable controllers for the
  // children of a cgroup that has member processes (the gateway's own cgroup always has one).
  if (!root) return { ok: false, reason: 'no delegated cgroup v2 directory configured (HERMES_MCP_CGROUP_ROOT)' };
  if (!existsSync(join(root, 'cgroup.controllers'))) return { ok: false, reason: `${root} is not a cgroup v2 directory` };
  try {
    if (readFileSync(join(root, 'cgroup.procs'), 'utf8').trim() !== '') return { ok: false, reason: `cgroup ${root} has member processes; delegate an empty one` };
  } catch {
    return { ok: false, reason: `cgroup ${root} cannot be read` };
  }
  try {
    accessSync(root, constants.W_OK);
    accessSync(join(root, 'cgroup.subtree_control'), constants.W_OK);
  } catch {
    return { ok: false, reason: `cgroup ${root} is not writable` };
  }
  const have = readFileSync(join(root, 'cgroup.controllers'), 'utf8').trim().split(/\s+/);
  const missing = CGROUP_CONTROLLERS.filter((c) => !have.includes(c));
  if (missing.length > 0) return { ok: false, reason: `cgroup ${root} lacks the ${missing.join(', ')} controller(s)` };
  return { ok: true, reason: `direct cgroup v2 limits under ${root}` };
}

/**
 * Loads the policy named by `HERMES_MCP_RESOURCE_POLICY` and finds out how it can be enforced here.
 * `childEnv` is the workers' environment (its PATH finds systemd-run, its XDG_RUNTIME_DIR the user
 * manager); `HERMES_MCP_CGROUP_ROOT` names a delegated, process-free cgroup v2 directory for the
 * fallback (there is no default: a guessed cgroup would fail every job at launch).
 */
export function loadResourceState(path: string | undefined, childEnv: NodeJS.ProcessEnv, cgroupRoot?: string): ResourceState {
  if (!path) return { mode: 'development', enforcement: 'none', reason: 'HERMES_MCP_RESOURCE_POLICY unset: development mode, no resource limits enforced' };
  let policy: ResourcePolicy;
  try {
    policy = readResourcePolicy(path);
  } catch (e) {
    return { mode: 'failed', path, enforcement: 'none', reason: (e as Error).message };
  }
  const scope = detectSystemdScope(childEnv);
  if (scope.available) return { mode: 'enforced', path, policy, enforcement: 'systemd', reason: scope.reason };
  const root = cgroupRoot;
  const cgroup = probeCgroupRoot(root);
  if (cgroup.ok) {
    enableCgroupControllers(root!);
    return { mode: 'enforced', path, policy, enforcement: 'cgroup', cgroupRoot: root!, reason: `${scope.reason}; ${cgroup.reason}` };
  }
  return { mode: 'enforced', path, policy, enforcement: 'none', reason: `resource policy cannot be enforced here: ${scope.reason}; ${cgroup.reason}` };
}

/** The stable refusal when new work may not start under this state; undefined when it may. */
export function startRefusal(state: ResourceState, what: string): GatewayError | undefined {
  if (state.mode === 'failed') return new GatewayError(ErrorCode.RESOURCE_POLICY_INVALID, `${what} refused: ${state.reason}`);
  if (state.mode === 'enforced' && state.enforcement === 'none') return new GatewayError(ErrorCode.RESOURCE_POLICY_UNENFORCEABLE, `${what} refused: ${state.reason}`);
  return undefined;
}

/** Throws the stable refusal when new work may not start under this state; returns otherwise. */
export function assertCanStartWork(state: ResourceState, what: string): void {
  const refusal = startRefusal(state, what);
  if (refusal) throw refusal;
}

/** The limits a short execute_code worker runs under, when enforced. */
export function shortWorkerLimits(state: ResourceState): ResourceLimits | undefined {
  return state.mode === 'enforced' ? state.policy?.short_workers : undefined;
}
