import { pino } from 'pino';
import { ConfigError, loadConfig } from '../platform/config.js';
import { gatewayEnvironment } from '../platform/environment.js';
import { composeForCheck } from '../compose/check.js';
import { hermesAgentCheck } from './hermes-agent.js';
import { authCheck, environmentCheck, jobDatabaseCheck, resourcePolicyCheck, systemdChecks } from './host-checks.js';
import { exitCode, formatText, fromProbe, type DoctorCheck } from './report.js';

// `hermes-mcp-gateway doctor`: what an operator runs when /readyz is 503 or before a tunnel
// cutover. It reads the configuration the gateway would (bin/gateway.ts hands it the same environment), builds the same
// adapters the gateway composes and runs their own readiness probes (the checks are theirs, not a
// copy), without listening and without the jobs adapter (which would reconcile the job database),
// then adds what readiness does not cover (host-checks.ts). The workers the adapters start to answer
// their probes (the graph and Hermes tool servers, execute_code's zygote) are closed before it
// returns, so nothing it started outlives it.

/** Fixes for components whose probe names none (it reports, the operator acts). */
const FIXES: Record<string, string> = {
  native_execution: 'install util-linux setpriv and unshare (per-worker PID namespaces), or see HERMES_MCP_ISOLATION',
  session_db: 'nothing to do until Hermes has run once in this HERMES_HOME (it creates state.db); otherwise point HERMES_HOME at your Hermes home',
};

export const DOCTOR_USAGE = `usage: hermes-mcp-gateway doctor [--json]

Checks what the gateway needs, with the same configuration (the environment) and the same probes
/readyz uses: Hermes home and its files, state.db, the cron lock, Hermes' tool server and its web
provider, which Hermes Agent it is and which tools its tool server exposes, Camofox, the code graph, the language servers, Honcho, the job database and resource
policy, the systemd user manager and job slices, isolation, the public URL and authentication.
One line per check (ok / warn / fail), each problem with the command or setting that fixes it.
It changes nothing, starts no systemd manager and reaches only the configured backends.
  --json   one JSON object: {"ok": bool, "checks": [{"name", "level", "reason", "fix"?}]}
Exit codes: 0 no check failed (warnings allowed); 1 a check failed; 2 usage error.
`;

export async function runDoctor(processEnv: NodeJS.ProcessEnv): Promise<DoctorCheck[]> {
  let config, sources;
  try {
    // The environment the gateway's start sees ($HERMES_HOME/.env included; the demo home made as the start makes it).
    const merged = gatewayEnvironment(processEnv, { create: true });
    sources = merged.sources;
    config = loadConfig(merged.env, { hermesDotenv: merged.hermesDotenv });
  } catch (e) {
    if (e instanceof ConfigError) return [{ name: 'configuration', level: 'fail', reason: e.message, fix: 'fix what the message names (docs/configuration.md)' }];
    throw e;
  }
  const checks: DoctorCheck[] = [
    { name: 'configuration', level: 'ok', reason: `HERMES_HOME ${config.hermesHome}, ${config.host}:${config.port}, roots ${config.roots.join(':')}` },
    ...environmentCheck(processEnv, sources),
  ];
  // Silent: the adapters' own startup logging would bury the report; each result is in it.
  const log = pino({ level: 'silent' });
  const composed = await composeForCheck(config, log);
  const { hermes, native, backends, gateway } = composed;
  try {
    if (!gateway) throw composed.error;
    const report = await gateway.readiness.check();
    for (const [name, result] of Object.entries(report.components)) checks.push(fromProbe(name, result, FIXES));
    checks.push(hermesAgentCheck(config, hermes, backends.hermesTools.startup()));
  } catch (e) {
    checks.push({ name: 'composition', level: 'fail', reason: `the gateway could not be composed: ${(e as Error).message}`, fix: 'fix what the reason names; the gateway would refuse to start the same way' });
  } finally {
    await composed.close();
  }
  checks.push(resourcePolicyCheck(native.runtime.resources));
  checks.push(jobDatabaseCheck(config));
  checks.push(...systemdChecks(native.runtime.childEnv, config.resourcePolicy !== undefined));
  checks.push(...authCheck(config));
  return checks;
}

/** The `doctor` subcommand's arguments; returns the exit code. */
export async function doctorMain(args: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(DOCTOR_USAGE);
    return 0;
  }
  const unexpected = args.find((a) => a !== '--json');
  if (unexpected !== undefined) {
    process.stderr.write(`hermes-mcp-gateway doctor: unexpected argument ${JSON.stringify(unexpected)}\n${DOCTOR_USAGE}`);
    return 2;
  }
  const checks = await runDoctor(env);
  const code = exitCode(checks);
  process.stdout.write(args.includes('--json') ? `${JSON.stringify({ ok: code === 0, checks })}\n` : formatText(checks));
  return code;
}
