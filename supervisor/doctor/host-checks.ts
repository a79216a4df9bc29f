import Database from 'better-sqlite3';
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import type { GatewayConfig } from '../platform/config.js';
import { assertSafePath, SCHEMA_VERSION } from '../tools/jobs/store/index.js';
import type { ResourceState } from '../platform/spawning/resource-policy.js';
import type { DoctorCheck } from './report.js';
import { passphraseFileProblem } from '../http/auth/consent.js';
import { DEMO_OPTIONAL_COMPONENTS, type EnvironmentSources } from '../platform/environment.js';
import { hermesHomeAdvice } from '../platform/health/advice.js';
import { operatorCommand } from '../platform/operator-command.js';

// What `doctor` checks beyond the readiness probes: facts /readyz reports beside readiness (the job
// database, the resource policy) or not at all (the systemd user manager and the job slices, the
// public URL and authentication). Every check here only reads: the job database is opened
// read-only, systemd is asked with `systemctl --user is-system-running` and `show`, which never
// start a manager, and nothing goes over the network.

const SYSTEMCTL_TIMEOUT_MS = 5000;
const SLICES = ['hermesjobs.slice', 'hermesshort.slice'];

export function resourcePolicyCheck(resources: ResourceState): DoctorCheck {
  const name = 'resource_policy';
  if (resources.mode === 'development') {
    return { name, level: 'warn', reason: resources.reason, fix: 'set HERMES_MCP_RESOURCE_POLICY to a policy file (example: policy/resource-policy.example.json) to enforce job and execute_code limits' };
  }
  if (resources.mode === 'failed') {
    return { name, level: 'fail', reason: `RESOURCE_POLICY_INVALID: ${resources.reason}`, fix: `fix ${resources.path} (schema policy/resource-policy.ts; chmod 600, owned by the service user), or unset HERMES_MCP_RESOURCE_POLICY` };
  }
  if (resources.enforcement === 'none') {
    return { name, level: 'fail', reason: `RESOURCE_POLICY_UNENFORCEABLE: ${resources.reason}`, fix: 'give the service account a systemd user manager (loginctl enable-linger $USER) or set HERMES_MCP_CGROUP_ROOT to a delegated cgroup v2 directory' };
  }
  return { name, level: 'ok', reason: `${resources.path} enforced through ${resources.enforcement === 'systemd' ? 'systemd scopes' : `cgroups under ${resources.cgroupRoot}`}` };
}

/**
 * The fix for a database whose directory does not exist: the Hermes home itself (create the home,
 * not move the database), or another directory (create it). Undefined when the directory exists.
 */
function missingDirectoryFix(config: GatewayConfig, dir: string): string | undefined {
  if (existsSync(dir)) return undefined;
  if (dir === config.hermesHome) return hermesHomeAdvice(dir);
  return `create its directory (mkdir -m 700 -p ${dir}), or set HERMES_MCP_JOBS_DATABASE to a file in an existing private directory`;
}

/** The job database, read-only: its path, schema, the operator's gate and unknown jobs holding capacity. */
export function jobDatabaseCheck(config: GatewayConfig): DoctorCheck {
  // The operator CLI as it runs here (its name on PATH, or the checkout's npm script).
  const admission = operatorCommand('hermes-mcp-admission', config.helperSearchPath).command;
  const name = 'job_database';
  const path = config.jobsDatabase;
  try {
    assertSafePath(path, 'job database');
  } catch (e) {
    return { name, level: 'fail', reason: (e as Error).message, fix: missingDirectoryFix(config, dirname(path)) ?? 'set HERMES_MCP_JOBS_DATABASE to a path in a directory only you (or root) can write, or fix that directory\'s owner and mode' };
  }
  if (!existsSync(path)) return { name, level: 'ok', reason: `${path} does not exist yet; the gateway creates it (0600) at its first start` };
  let db: Database.Database | undefined;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true });
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version > SCHEMA_VERSION) return { name, level: 'fail', reason: `${path} has schema version ${version}, newer than this gateway's ${SCHEMA_VERSION}`, fix: 'run the gateway version that wrote it, or set HERMES_MCP_JOBS_DATABASE to another file' };
    const mode = statSync(path).mode & 0o777;
    if (mode & 0o077) return { name, level: 'warn', reason: `${path} has mode ${mode.toString(8)}; receipts are private`, fix: `chmod 600 ${path}` };
    if (version < SCHEMA_VERSION) return { name, level: 'ok', reason: `${path} (schema ${version}; the gateway migrates it to ${SCHEMA_VERSION} at start)` };
    const gate = db.prepare('SELECT paused, reason FROM admission_gate WHERE id = 1').get() as { paused: number; reason: string | null };
    const unknown = (db.prepare(`SELECT count(*) AS n FROM jobs WHERE state = 'unknown'`).get() as { n: number }).n;
    if (unknown > 0) {
      const full = unknown >= config.limits.maxActiveJobs;
      return { name, level: full ? 'fail' : 'warn', reason: `${unknown} unknown job(s) (left by a gateway that was killed) hold ${unknown} of ${config.limits.maxActiveJobs} job slots and their workspaces`, fix: `${admission} reconcile (a dry run), then ${admission} reconcile --apply` };
    }
    if (gate.paused) return { name, level: 'warn', reason: `job admission is paused by the operator${gate.reason ? ` (${gate.reason})` : ''}`, fix: `${admission} resume --owner-token-file FILE (the token that paused it)` };
    return { name, level: 'ok', reason: `${path} (schema ${version}, admission open)` };
  } catch (e) {
    return { name, level: 'fail', reason: `${path}: ${(e as Error).message}`, fix: `restore it from a snapshot (${admission} snapshot), or move it aside and let the gateway create a new one` };
  } finally {
    db?.close();
  }
}

function systemctl(env: Record<string, string>, args: string[]): { ok: boolean; out: string; err: string; missing: boolean } {
  const r = spawnSync('systemctl', ['--user', ...args], { env, encoding: 'utf8', timeout: SYSTEMCTL_TIMEOUT_MS, killSignal: 'SIGKILL', stdio: ['ignore', 'pipe', 'pipe'] });
  const missing = (r.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
  return { ok: r.status === 0, out: `${r.stdout ?? ''}`.trim(), err: `${r.stderr ?? ''}`.trim().split('\n')[0] ?? '', missing };
}

/**
 * The systemd user manager and the job slices, asked read-only with the workers' environment (the
 * same PATH, XDG_RUNTIME_DIR and bus the scopes would use). Without a resource policy nothing
 * depends on them, so their absence is a warning; with one it is a failure.
 */
export function systemdChecks(env: Record<string, string>, policySet: boolean): DoctorCheck[] {
  const missingLevel = policySet ? 'fail' : 'warn';
  const state = systemctl(env, ['is-system-running']);
  if (state.missing) return [{ name: 'systemd_user', level: missingLevel, reason: 'systemctl not found on PATH: no systemd', fix: 'run the gateway on a systemd host, or set HERMES_MCP_CGROUP_ROOT to a delegated cgroup v2 directory for job limits' }];
  // is-system-running prints the state (running, degraded, starting, offline...) even when it exits non-zero.
  const status = state.out.split('\n')[0] ?? '';
  if (status !== 'running' && status !== 'degraded' && status !== 'starting' && status !== 'initializing') {
    return [{ name: 'systemd_user', level: missingLevel, reason: `no systemd user manager reachable (${status || state.err || 'no answer'})`, fix: 'loginctl enable-linger $USER (a user manager that outlives logins), then run the gateway from that account\'s user session or its --user unit (scripts/install-units.sh --user)' }];
  }
  const checks: DoctorCheck[] = [
    status === 'running' ? { name: 'systemd_user', level: 'ok', reason: 'systemd user manager running' } : { name: 'systemd_user', level: 'warn', reason: `systemd user manager ${status}`, fix: 'systemctl --user --failed shows which units failed' },
  ];
  const shown = systemctl(env, ['show', '--property=LoadState', '--value', ...SLICES]);
  const states = shown.out.split('\n');
  SLICES.forEach((slice, i) => {
    const load = states[i] ?? '';
    checks.push(
      load === 'loaded'
        ? { name: slice, level: 'ok', reason: `${slice} loaded` }
        : { name: slice, level: policySet ? 'warn' : 'ok', reason: `${slice} is ${load || 'unknown'} (systemd-run creates it without the limits of systemd/${slice})`, ...(policySet ? { fix: 'scripts/install-units.sh --user, then systemctl --user daemon-reload' } : {}) },
    );
  });
  return checks;
}

/** The public URL and authentication as configured (nothing is fetched: the public URL is the internet's side). */
export function authCheck(config: GatewayConfig): DoctorCheck[] {
  const { auth } = config;
  const authCli = operatorCommand('hermes-mcp-auth', config.helperSearchPath).command;
  const checks: DoctorCheck[] = [];
  if (auth.publicUrls.length === 0) {
    checks.push({ name: 'public_url', level: 'ok', reason: `none: loopback only${auth.required ? `, static tokens required (HERMES_MCP_AUTH=on; ${authCli} token create NAME)` : ', no credential (the Secure MCP Tunnel setup)'}` });
  } else {
    checks.push({ name: 'public_url', level: 'ok', reason: `${auth.publicUrls.map((u) => u.origin).join(', ')}: a credential on every /mcp request, OAuth ${auth.oauth ? `on (approve new clients with ${authCli} approve CODE)` : 'off (static tokens only)'}` });
  }
  if (auth.passphraseFile) {
    // The same check the gateway makes at startup (and on every use).
    const problem = passphraseFileProblem(auth.passphraseFile);
    checks.push(problem ? { name: 'auth_passphrase', level: 'fail', reason: `HERMES_MCP_AUTH_PASSPHRASE_FILE ${auth.passphraseFile} ${problem}`, fix: `chmod 600 ${auth.passphraseFile} (a file of the service user), or unset HERMES_MCP_AUTH_PASSPHRASE_FILE` } : { name: 'auth_passphrase', level: 'ok', reason: `${auth.passphraseFile} (0600)` });
  }
  return checks;
}

/** The prefixes of the variables the gateway reads as settings (docs/configuration.md): what doctor names as set in the environment. */
const SETTING_NAME = /^(HERMES_|HONCHO_|CAMOFOX_)/;

/**
 * Where the settings came from: which names the process environment set, which `$HERMES_HOME/.env`
 * and the managed scope's `.env` supplied, and which the environment overrode in them. Names only:
 * a value may be a secret.
 */
export function environmentCheck(processEnv: NodeJS.ProcessEnv, sources: EnvironmentSources): DoctorCheck[] {
  const fromEnvironment = Object.keys(processEnv).filter((n) => SETTING_NAME.test(n) && processEnv[n] !== undefined).sort();
  const list = (names: readonly string[]) => (names.length ? [...names].sort().join(', ') : 'none');
  const file = sources.envFile.loaded
    ? `${sources.envFile.path}: from the file ${list(sources.fromFile)}${sources.overridden.length ? `; the environment overrides the file for ${list(sources.overridden)}` : ''}${sources.fileOverrides.length ? `; the file overrides the environment for ${list(sources.fileOverrides)} (Hermes' Honcho identity, as Hermes reads it)` : ''}`
    : `no ${sources.envFile.path}`;
  const scope = sources.managedEnvFile;
  const managed = scope?.loaded
    ? `; the managed scope's ${scope.path}: from the file ${list(sources.fromManagedFile)}${sources.managedOverridden.length ? `; the environment overrides it for ${list(sources.managedOverridden)}` : ''}${sources.managedOverrides.length ? `; it overrides the environment or ${sources.envFile.path} for ${list(sources.managedOverrides)} (as Hermes applies it)` : ''}`
    : '';
  const reason = `${file}${managed}; from the environment ${list(fromEnvironment)}`;
  const checks: DoctorCheck[] = [
    sources.unexpanded.length
      ? { name: 'environment', level: 'warn', reason: `${reason}; ${list(sources.unexpanded)} hold \${...}, which Hermes expands and the gateway reads literally`, fix: `write the value itself in ${scope?.loaded ? `${sources.envFile.path} or ${scope.path}` : sources.envFile.path}, or set it in the environment` }
      : { name: 'environment', level: 'ok', reason },
  ];
  const demo = sources.demo;
  if (demo) {
    checks.push({
      name: 'demo_home',
      level: 'warn',
      reason: `HERMES_HOME is unset and ~/.hermes does not exist: this checkout serves the demo home ${demo.home} (project root ${demo.root}${demo.created ? '' : '; not made yet: the gateway makes both at its first start'}), with ${DEMO_OPTIONAL_COMPONENTS.join(', ')} optional`,
      fix: 'set HERMES_HOME to your Hermes home (or install Hermes, which creates ~/.hermes) to serve a real one',
    });
  }
  return checks;
}
