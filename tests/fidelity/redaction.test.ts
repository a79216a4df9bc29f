import { join } from 'node:path';
import { redact } from '../../shared/redact.js';
import { sessionToken, viaBridge } from '../helpers/gateway.js';
import { compareSurface, loadCases, oneByOne, SurfaceFixture, type Answers, type FidelityCase } from './harness.js';
import { writeFiles } from './workspace.js';

// Redaction against Hermes' redact_sensitive_text (agent/redact.py), case by case, in each of its
// modes: the default, code_file=True and file_read=True. Each answer is the text as each mode leaves
// it, `{ default, code_file, file_read }`.
//
// The gateway is reached two ways:
// - direct: its redact() (shared/redact.ts), a pure function, called in the same three modes;
// - mcp (the cases marked `mcp: true`): the text written to a file and read back as a client does,
//   with read_file (file content: file-read mode), terminal `cat FILE` (command output: code-file
//   mode, as Hermes' redact_terminal_output picks it for any command that does not dump the
//   environment) and terminal `env cat FILE` (a command that starts with `env` counts as an
//   environment dump, in Hermes' is_env_dump_command and in the gateway alike: the default mode).

interface RedactionCase extends FidelityCase {
  text: string;
  mcp?: boolean;
}

interface Modes {
  default: string;
  code_file: string;
  file_read: string;
}

const fx = new SurfaceFixture('redact');
const cases = loadCases<RedactionCase>('redaction');
/** terminal needs a durable owner: a capability session of the fidelity client. */
let token = '';

for (const c of cases) {
  if (typeof c.text !== 'string' || c.text === '') throw new Error(`cases/redaction.yaml: ${c.id} has no text`);
  // Terminal output is stripped before it is redacted (Hermes' terminal_tool does `output.strip()`),
  // and read_file's lines are numbered; an MCP sample is a text both carry unchanged.
  if (c.mcp === true && (c.text !== c.text.trim() || c.text.includes('\r'))) {
    throw new Error(`cases/redaction.yaml: ${c.id} is an MCP sample with surrounding whitespace or a CR`);
  }
}

const sampleOf = (c: RedactionCase): string => join(fx.ws, c.id, 'sample.txt');
const shellQuote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

function record(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`${what}: not an object: ${JSON.stringify(value)}`);
  return value as Record<string, unknown>;
}

/** read_file's content without its `     N|` line numbers: the file's text as the gateway left it. */
async function viaReadFile(c: RedactionCase): Promise<string> {
  const r = record(await fx.gw.call('read_file', { path: sampleOf(c) }), `read_file ${c.id}`);
  if (typeof r.content !== 'string') throw new Error(`read_file ${c.id}: no content: ${JSON.stringify(r)}`);
  return r.content
    .split('\n')
    .map((line) => {
      const m = /^ *\d+\|/.exec(line);
      if (!m) throw new Error(`read_file ${c.id}: a line without its number: ${JSON.stringify(line)}`);
      return line.slice(m[0].length);
    })
    .join('\n');
}

async function viaTerminal(c: RedactionCase, command: string): Promise<string> {
  const r = record((await viaBridge(fx.gw.client, 'terminal', { command }, token)).data, `terminal ${c.id}`);
  if (r.exit_code !== 0 || typeof r.output !== 'string') throw new Error(`terminal ${c.id} (${command}): ${JSON.stringify(r)}`);
  return r.output;
}

compareSurface<RedactionCase>({
  surface: 'redaction',
  cases,
  fixture: fx,
  async setUp() {
    for (const c of cases) if (c.mcp === true) writeFiles(join(fx.ws, c.id), { 'sample.txt': c.text });
    token = await sessionToken((await fx.gateway()).client);
  },
  hermes: (list) => fx.driver('redaction.py', { cases: list.map((c) => ({ id: c.id, text: c.text })) }),
  gateway: {
    direct: async (list): Promise<Answers> =>
      new Map(
        list.map((c): [string, Modes] => [
          c.id,
          { default: redact(c.text), code_file: redact(c.text, { codeFile: true }), file_read: redact(c.text, { fileRead: true }) },
        ]),
      ),
    mcp: (list) =>
      oneByOne(
        list.filter((c) => c.mcp === true),
        async (c): Promise<Modes> => ({
          default: await viaTerminal(c, `env cat ${shellQuote(sampleOf(c))}`),
          code_file: await viaTerminal(c, `cat ${shellQuote(sampleOf(c))}`),
          file_read: await viaReadFile(c),
        }),
      ),
  },
});
