import { isAbsolute, join } from 'node:path';
import { copyOfHermesHome } from '../helpers/hermes.js';
import { tempDirs } from '../helpers/temp.js';
import { compareSurface, errorAsHermes, loadCases, normalise, oneByOne, oracleAnswers, runOracle, type FidelityCase } from './harness.js';
import { startFidelityGateway, writeFiles, type FidelityGateway, type FileSpec } from './workspace.js';

// read_file against Hermes' read_file_tool (tools/file_tools.py), over MCP and through hermes_tools.
// Each case's files are written into a directory of its own; `args.path` is relative to it.

interface ReadCase extends FidelityCase {
  files?: Record<string, FileSpec>;
  args: { path: string; offset?: number; limit?: number };
}

const temp = tempDirs();
const cases = loadCases<ReadCase>('read_file');
let ws = '';
let gw: FidelityGateway | undefined;

const argsOf = (c: ReadCase) => ({ ...c.args, path: isAbsolute(c.args.path) ? c.args.path : join(ws, c.id, c.args.path) });
const norm = (v: unknown) => normalise(errorAsHermes(v), { replace: { [ws]: '<ws>' } });

compareSurface<ReadCase>({
  surface: 'read_file',
  cases,
  async setUp() {
    ws = temp.make('hmcp-fid-read-');
    for (const c of cases) writeFiles(join(ws, c.id), c.files);
    gw = await startFidelityGateway(copyOfHermesHome(temp.make('hmcp-fid-read-gw-'), {}), ws);
  },
  async tearDown() {
    await gw?.close();
    temp.removeAll();
  },
  async hermes(list) {
    const home = copyOfHermesHome(temp.make('hmcp-fid-read-hermes-'), {});
    const answers = oracleAnswers(await runOracle('read_file.py', { cases: list.map((c) => ({ id: c.id, args: argsOf(c) })) }, home, { TERMINAL_CWD: ws }));
    return new Map([...answers].map(([id, a]) => [id, norm(a)]));
  },
  gateway: {
    mcp: (list) => oneByOne(list, async (c) => norm(await gw!.call('read_file', argsOf(c)))),
    async hermes_tools(list) {
      const results = await gw!.hermesTools(list.map((c) => ['read_file', argsOf(c)]));
      return new Map(list.map((c, i) => [c.id, norm(results[i])]));
    },
  },
});
