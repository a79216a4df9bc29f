import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { hermesPin } from '../helpers/hermes.js';

// Hermes' normalised answers kept between runs of one surface, for the mutation test
// (scripts/mutation-test.ts): a mutant changes the gateway only, so Hermes' side of a surface answers
// the same in every mutant run. With HMCP_FIDELITY_HERMES_CACHE=<dir>, a surface's Hermes answers
// are read from <dir>/<pin>/<surface>.json when that file exists, else gathered and written there.
// Unset (every ordinary run), Hermes is always asked. The mutation test checks that a surface passes
// unmutated on the kept answers before it uses them.

type Answers = Map<string, unknown>;

export const HERMES_CACHE_ENV = 'HMCP_FIDELITY_HERMES_CACHE';

export async function cachedHermesAnswers(surface: string, ask: () => Promise<Answers>): Promise<Answers> {
  const dir = process.env[HERMES_CACHE_ENV];
  if (!dir) return ask();
  const file = join(dir, hermesPin(), `${surface}.json`);
  if (existsSync(file)) return new Map(JSON.parse(readFileSync(file, 'utf8')) as Array<[string, unknown]>);
  const answers = await ask();
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(`${file}.tmp`, JSON.stringify([...answers]));
  renameSync(`${file}.tmp`, file);
  return answers;
}
