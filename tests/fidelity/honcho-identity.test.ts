import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { resolveHonchoConfig } from '../../supervisor/tools/memory/config.js';
import { compareSurface, loadCases, normalise, oracleAnswers, runOracle, SurfaceFixture, type FidelityCase } from './harness.js';

// honcho_identity: for one honcho.json variant (host blocks, profiles, peer names, workspace
// overrides, the environment), the names the gateway talks to Honcho with against the ones Hermes'
// Honcho provider derives (drivers/honcho_identity.py: plugins/memory/honcho/client.py
// HonchoClientConfig.from_global_config and get_honcho_client, session.py HonchoSessionManager).
// Besides the names it uses itself, the gateway must know Hermes' own assistant peer and whose view
// of the user Hermes' tools read (session.py _resolve_observer_target): its reads take that view.
// The gateway side is its own config resolution (supervisor/tools/memory/config.ts resolveHonchoConfig),
// called with the same HERMES_HOME, HOME, working directory and environment; nothing is sent to any
// Honcho (the base URL is a loopback address nobody listens on). Each side gets its own copy of the
// case's files, under a HOME of its own, so ~/.honcho/config.json of the machine is never read.

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
  return { home, hermesHome, cwd, env: Object.fromEntries(Object.entries(c.env ?? {}).map(([k, v]) => [k, fill(v, home)])) };
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
    const answers = oracleAnswers(await runOracle('honcho_identity.py', input, join(fx.ws, 'driver-home')));
    return new Map(list.map((c) => [c.id, norm(layout(c, 'hermes'))(answers.get(c.id))]));
  },
  gateway: {
    config: async (list) =>
      new Map(
        list.map((c) => {
          const l = layout(c, 'gateway');
          const r = resolveHonchoConfig(l.hermesHome, { HOME: l.home, ...l.env }, l.cwd);
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
