import { join } from 'node:path';
import type { Limits } from '../../shared/limits.js';
import { compareSurface, errorAsHermes, loadCases, normalise, oneByOne, oracleAnswers, runOracle, SurfaceFixture, type FidelityCase } from './harness.js';
import { startFidelityGateway, writeFiles, type FileSpec } from './workspace.js';

// startup_context against the four files as Hermes' own prompt builder reads them
// (drivers/startup_context.py: agent/prompt_builder.py load_soul_md, _find_hermes_md,
// _load_hermes_md; tools/memory_tool.py MemoryStore). Each case's files are written twice, once
// for each side (Hermes' SOUL.md seeding writes into its home), and the gateway is started for the
// case with that home and project directory. Compared per file: where it is read from, whether it
// is loaded, its text, and whether it was cut to a size limit; each file by its slot (soul,
// project, memory, user).

interface StartupCase extends FidelityCase {
  files: Record<string, FileSpec>;
  project?: string;
  /** The gateway's limits for the case (its size limits are its own). */
  limits?: Partial<Limits>;
}

interface FileView {
  present: boolean;
  path: string;
  content?: string;
  truncated?: boolean;
}

const fx = new SurfaceFixture('startup');
const cases = loadCases<StartupCase>('startup_context');

const sideDir = (c: StartupCase, side: 'hermes' | 'gateway') => join(fx.ws, c.id, side);
/**
 * The four files by their slot (soul, project, memory, user) rather than by file name: a
 * divergence names a field by a dotted path, which a key like `SOUL.md` would split.
 */
const SLOTS: Record<string, string> = { 'SOUL.md': 'soul', '.hermes.md': 'project', 'MEMORY.md': 'memory', 'USER.md': 'user' };
function bySlot(v: unknown): unknown {
  const files = (v as { files?: unknown } | null)?.files;
  if (typeof files !== 'object' || files === null || Array.isArray(files)) return v;
  return { ...(v as object), files: Object.fromEntries(Object.entries(files).map(([name, f]) => [SLOTS[name] ?? name, f])) };
}
const norm = (dir: string) => (v: unknown) => normalise(bySlot(errorAsHermes(v)), { replace: { [dir]: '<case>' } });

compareSurface<StartupCase>({
  surface: 'startup_context',
  cases,
  fixture: fx,
  async setUp() {
    for (const c of cases) for (const side of ['hermes', 'gateway'] as const) writeFiles(sideDir(c, side), c.files);
  },
  async hermes(list) {
    const input = { cases: list.map((c) => ({ id: c.id, home: join(sideDir(c, 'hermes'), 'home'), project: join(sideDir(c, 'hermes'), c.project ?? 'proj') })) };
    const answers = oracleAnswers(await runOracle('startup_context.py', input, join(fx.ws, 'hermes-driver-home')));
    return new Map(list.map((c) => [c.id, norm(sideDir(c, 'hermes'))(answers.get(c.id))]));
  },
  gateway: {
    mcp: (list) =>
      oneByOne(list, async (c) => {
        const dir = sideDir(c, 'gateway');
        const gw = await startFidelityGateway(join(dir, 'home'), dir, { env: { HERMES_MCP_PROJECT_DIR: join(dir, c.project ?? 'proj') }, ...(c.limits ? { limits: c.limits } : {}) });
        try {
          const r = (await gw.call('startup_context', {})) as { files?: Array<FileView & { name: string }> };
          if (!Array.isArray(r.files)) return norm(dir)(r);
          const files: Record<string, FileView> = {};
          for (const f of r.files) {
            files[f.name] = f.present ? { present: true, path: f.path, content: f.content!, truncated: false } : { present: false, path: f.path };
          }
          return norm(dir)({ files });
        } finally {
          await gw.close();
        }
      }),
  },
});
