import { execFileSync } from 'node:child_process';
import { hermes, hermesEnv } from './hermes.js';

// Hermes' own dispatch coercion (model_tools.py / tools/arg_coercion.py `coerce_tool_args`) run in
// the pinned Hermes venv, to compare the gateway's copy (supervisor/core/hermes-args.ts) with.

export type Args = Record<string, unknown>;

export interface HermesCase {
  /** A Hermes tool name: its registered schema is used. */
  tool?: string;
  /** Or a schema given to Hermes' coerce_tool_args in place of the registry's. */
  schema?: Record<string, unknown>;
  args: Args;
}

/** Hermes' coerce_tool_args on each case, in one interpreter of the pinned venv with HERMES_HOME `home`. */
export function hermesCoerce(home: string, cases: readonly HermesCase[]): Args[] {
  const script = [
    'import json, sys',
    'import model_tools',
    'from tools.registry import registry',
    'coerce = model_tools.coerce_tool_args',
    'real = registry.get_schema',
    'out = []',
    'for c in json.load(sys.stdin):',
    '    if "schema" in c:',
    '        registry.get_schema = lambda name, s=c["schema"]: {"name": name, "parameters": s}',
    '    else:',
    '        registry.get_schema = real',
    '        assert real(c["tool"]), "Hermes registers no tool " + c["tool"]',
    '    out.append(coerce(c.get("tool", "gateway_schema"), dict(c["args"])))',
    'print(json.dumps(out))',
  ].join('\n');
  return JSON.parse(runHermes(home, script, JSON.stringify(cases))) as Args[];
}

/** A script in the pinned venv's interpreter (HERMES_HOME `home`); its last line of output. */
export function runHermes(home: string, script: string, input: string): string {
  const stdout = execFileSync(hermes().python, ['-c', script], {
    input,
    cwd: home,
    env: hermesEnv(home),
    encoding: 'utf8',
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const lines = stdout.trim().split('\n');
  return lines[lines.length - 1]!;
}
