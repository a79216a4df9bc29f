import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { packageRoot } from '../../../shared/package-root.js';

// tests/tools/command-guards/pattern-examples.yaml: examples of every rule of policy/dangerous-commands.json
// (its header says what each field means). Read by pattern-examples.test.ts (the gateway) and
// hermes-rules.test.ts (each Hermes the tests run).

export type List = 'hardline' | 'dangerous';

export interface Verdict {
  verdict: 'allow' | 'hardline' | 'dangerous';
  key?: string;
}

export interface Example {
  list: List;
  /** The rule's key. */
  rule: string;
  command: string;
  /** What the full check reports: the rule, or an earlier one (`verdict`/`key`), or allow. */
  expected: Verdict;
  /** What the gateway reports, where it keeps a stricter reading (else `expected`). */
  gateway: Verdict;
  /** The Hermes versions the example is checked against (a PEP 440 specifier); undefined: every one carrying the rule. */
  hermes: string | undefined;
  flagged: boolean;
}

type Entry = string | { command: string; hermes?: string; verdict?: List; key?: string; gateway?: { verdict: List; key: string } };
type ExampleFile = Record<List, Record<string, { flagged?: Entry[]; allowed?: Entry[] }>>;

export function loadExamples(): Example[] {
  const file = parse(readFileSync(join(packageRoot(), 'tests', 'tools', 'command-guards', 'pattern-examples.yaml'), 'utf8')) as ExampleFile;
  const out: Example[] = [];
  for (const list of ['hardline', 'dangerous'] as const) {
    for (const [rule, { flagged = [], allowed = [] }] of Object.entries(file[list])) {
      for (const [entries, isFlagged] of [
        [flagged, true],
        [allowed, false],
      ] as const) {
        for (const entry of entries) {
          const e = typeof entry === 'string' ? { command: entry } : entry;
          const expected: Verdict = isFlagged ? { verdict: e.verdict ?? list, key: e.key ?? rule } : { verdict: 'allow' };
          out.push({ list, rule, command: e.command, expected, gateway: e.gateway ?? expected, hermes: e.hermes, flagged: isFlagged });
        }
      }
    }
  }
  return out;
}
