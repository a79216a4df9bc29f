import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { check, Skip, type GateContext } from './context.js';

// Gates 6 and 7: liveness and readiness readback, and the systemd unit (restart, enabled state).

export async function healthGate(ctx: GateContext): Promise<string> {
  const res = await fetch(`${ctx.baseUrl}/healthz`);
  const health = (await res.json()) as { status?: string; public_tools?: number };
  check(res.status === 200 && health.status === 'ok', `/healthz answered ${res.status} ${JSON.stringify(health).slice(0, 200)}`);
  await ctx.refreshReadiness();
  const { status, body } = ctx.readyz;
  const reasons = (body.reasons ?? []).map((r) => `${r.component}: ${r.reason}`).join('; ');
  check(status === 200 && body.status === 'ready', `/readyz answered ${status} ${body.status ?? ''}${reasons ? `: ${reasons}` : ''}`);
  const components = Object.entries(body.components ?? {}).map(([name, c]) => `${name}=${c.status}`);
  return `/healthz ok; /readyz ready (${components.join(', ')})`;
}

export async function graphReadinessGate(ctx: GateContext): Promise<string> {
  const graph = ctx.component('graph');
  check(graph, '/readyz has no graph component');
  if (!graph.ready && graph.required === false) throw new Skip(`the code graph is optional here and not ready (${graph.status}${graph.reason ? `: ${graph.reason}` : ''})`);
  check(graph.ready && graph.status === 'ok', `/readyz graph: ${graph.status}${graph.reason ? `: ${graph.reason}` : ''}`);
  return '/readyz graph ok (the upstream answered with its one tool)';
}

function systemctl(scope: '--user' | '--system', ...args: string[]) {
  const r = spawnSync('systemctl', [scope, ...args], { encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, out: `${r.stdout ?? ''}${r.stderr ?? ''}`.trim() };
}

/**
 * Restarts the unit through the running service manager and reads back its enabled state, then
 * waits for the restarted gateway's /readyz. Never starts a service manager: without one (no
 * /run/systemd/system) the gate is skipped.
 */
export async function systemdGate(ctx: GateContext): Promise<string> {
  if (!existsSync('/run/systemd/system')) throw new Skip('systemd is not the service manager on this host (/run/systemd/system is absent)');
  const unit = ctx.options.systemdUnit;
  const scope = (['--user', '--system'] as const).find((s) => systemctl(s, 'cat', unit).code === 0);
  if (!scope) throw new Skip(`no ${unit} unit is installed for this user or the system (scripts/install-units.sh renders it)`);
  const enabled = systemctl(scope, 'is-enabled', unit);
  check(enabled.code === 0 && enabled.out === 'enabled', `systemctl ${scope} is-enabled ${unit}: ${enabled.out}`);
  const restart = systemctl(scope, 'restart', unit);
  check(restart.code === 0, `systemctl ${scope} restart ${unit}: ${restart.out}`);
  const active = systemctl(scope, 'is-active', unit);
  check(active.out === 'active', `after the restart ${unit} is ${active.out}`);
  const end = Date.now() + 60_000;
  for (;;) {
    const ready = await fetch(`${ctx.baseUrl}/readyz`).then((r) => r.status, () => 0);
    if (ready === 200) break;
    check(Date.now() < end, `/readyz not 200 within 60 s of the restart (last ${ready})`);
    await new Promise((r) => setTimeout(r, 500));
  }
  return `${scope.slice(2)} unit ${unit}: enabled, restarted, active, /readyz 200 again`;
}
