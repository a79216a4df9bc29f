import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { compareSurface, FIDELITY_DIR, loadCases, normalise, normalisedAnswers, oracleAnswers, runOracle, SurfaceFixture, type Answers, type FidelityCase } from './harness.js';

// execute_code's hermes_tools module against the stub Hermes' own execute_code generates
// (tools/code_execution_tool.py generate_hermes_tools_module, _scrub_child_env): the same function
// names and inspect.signature (drivers/introspect.py, the same code on both sides), the same results
// for the same calls, and the same names kept of one planted parent environment.

interface ToolsCase extends FidelityCase {
  kind: 'names' | 'signature' | 'call' | 'env' | 'injected' | 'script-tz';
  function?: string;
  kwargs?: Record<string, unknown>;
  names?: string[];
}

const fx = new SurfaceFixture('htools');
const cases = loadCases<ToolsCase>('hermes_tools');
/** config.yaml terminal.env_passthrough, in both homes. */
const PASSTHROUGH = ['MY_SERVICE_TOKEN', 'PLAIN_PASSTHROUGH'];
/** A zone with no daylight saving, whose offset (+0530) differs from a test machine's usual UTC. */
const TIMEZONE = 'Asia/Kolkata';
let gwHome = '';
let hermesHome = '';

/**
 * The parent environment of a script: every planted name (env cases) with a value of its own, and
 * working values where a tool run from the script reads the name (locale, PATH, HOME, temp dirs).
 */
function parentEnvironment(home: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const c of cases) for (const n of c.names ?? []) env[n] = `value-of-${n}`;
  env.HERMES_TIMEZONE = TIMEZONE;
  const working = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, HERMES_HOME: home, LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8', Lang: 'C.UTF-8', TERM: 'dumb', SHELL: '/bin/sh' };
  const temp = { TMPDIR: '/tmp', TMP: '/tmp', TEMP: '/tmp', XDG_CONFIG_HOME: join(home, '.config') };
  // Directories that do not exist: a script's python must not take them for a virtualenv or conda.
  const absent = { VIRTUAL_ENV: join(home, 'no-venv'), CONDA_PREFIX: join(home, 'no-conda'), TERMINFO: join(home, 'no-terminfo') };
  return { ...env, ...working, ...temp, ...absent };
}

const withWs = (v: unknown): unknown => normalise(v, { replace: { '<ws>': fx.ws } });
const norm = (v: unknown) => normalise(v, { replace: { [fx.ws]: '<ws>' } });

/** Runs `code` through the gateway's execute_code; its last output line as JSON (names and signatures only: nothing output redaction would touch). */
async function gatewayScript(code: string): Promise<Record<string, unknown>> {
  const r = (await fx.gw.call('execute_code', { code })) as { status?: string; output?: string };
  if (r.status !== 'success') throw new Error(`execute_code failed: ${JSON.stringify(r)}`);
  return JSON.parse(String(r.output).trim().split('\n').at(-1)!) as Record<string, unknown>;
}

compareSurface<ToolsCase>({
  surface: 'hermes_tools',
  cases,
  fixture: fx,
  async setUp() {
    const spec = { config: { terminal: { env_passthrough: PASSTHROUGH } } };
    gwHome = fx.hermesHome('gw', spec);
    hermesHome = fx.hermesHome('hermes', spec);
    // The gateway reads its own settings from the environment its children inherit (one process
    // environment in a real start): HERMES_TIMEZONE, which Hermes turns into a script's TZ, is the
    // one planted name the gateway itself acts on.
    await fx.gateway({ home: gwHome, inherited: parentEnvironment(gwHome), env: { HERMES_TIMEZONE: TIMEZONE } });
  },
  async hermes(list) {
    const input = { cases: list.map((c) => ({ ...c, kwargs: withWs(c.kwargs ?? {}) })), parent: parentEnvironment(hermesHome) };
    const answers = oracleAnswers(await runOracle('hermes_tools.py', input, hermesHome, { TERMINAL_CWD: fx.ws }, 300_000));
    return normalisedAnswers(answers, norm);
  },
  gateway: {
    async execute_code(list) {
      const introspect = readFileSync(join(FIDELITY_DIR, 'drivers', 'introspect.py'), 'utf8');
      const seen = await gatewayScript(
        [
          introspect,
          'import json, os, time, hermes_tools',
          'names = public_functions(hermes_tools)',
          'tz = {"TZ": os.environ.get("TZ"), "HERMES_TIMEZONE": os.environ.get("HERMES_TIMEZONE"), "utc_offset": time.strftime("%z")}',
          'print(json.dumps({"names": names, "sigs": {n: describe(getattr(hermes_tools, n)) for n in names}, "env": sorted(os.environ), "tz": tz}))',
        ].join('\n'),
      );
      const sigs = seen.sigs as Record<string, unknown>;
      const env = new Set(seen.env as string[]);
      const parent = new Set(Object.keys(parentEnvironment(gwHome)));
      const out: Answers = new Map();
      for (const c of list) {
        if (c.kind === 'names') out.set(c.id, seen.names);
        else if (c.kind === 'signature') out.set(c.id, sigs[c.function!] ?? { missing: c.function });
        else if (c.kind === 'env') out.set(c.id, Object.fromEntries(c.names!.map((n) => [n, env.has(n)])));
        else if (c.kind === 'injected') out.set(c.id, Object.fromEntries([...env].filter((n) => !parent.has(n)).map((n) => [n, true])));
        else if (c.kind === 'script-tz') out.set(c.id, seen.tz);
      }
      return out;
    },
    async hermes_tools(list) {
      const calls = list.filter((c) => c.kind === 'call');
      const results = await fx.gw.hermesTools(calls.map((c) => [c.function!, withWs(c.kwargs ?? {}) as Record<string, unknown>]));
      return new Map(calls.map((c, i) => [c.id, norm(results[i])]));
    },
  },
});
