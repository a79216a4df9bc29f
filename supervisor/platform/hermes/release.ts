import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gte, satisfies, valid, validRange } from '@renovatebot/pep440';
import * as v from 'valibot';
import { packageRoot } from '../../../shared/package-root.js';
import { API_SERVER_CHANGES, CRON_CHANGES, HONCHO_CHANGES, SESSION_SEARCH_CHANGES, SKILLS_CHANGES, TERMINAL_CHANGES, TOOL_SERVER_CHANGES, type HermesChange } from './changes.js';
import { FILE_TOOL_CHANGES } from './file-tool-changes.js';

// Which Hermes Agent the gateway fronts, as the tool families see it. Hermes changed after 0.19.0
// in ways the gateway follows (a default, a field, a guard); each such change is named here once,
// with the first release that has it, and a family asks `release.has(name)` instead of comparing
// versions itself. Where Hermes offers a capability to read (the columns of state.db, the tools
// its tool server lists, the routes its API server answers), the family reads that instead and
// needs no entry here. A Hermes whose version is not known (none installed, or one that does not
// say) is taken to be the newest the gateway knows: what a user installing Hermes today gets.

export type { HermesChange } from './changes.js';

/** Every change the gateway follows by version. */
export const HERMES_CHANGES = {
  ...FILE_TOOL_CHANGES,
  ...TERMINAL_CHANGES,
  ...SESSION_SEARCH_CHANGES,
  ...CRON_CHANGES,
  ...HONCHO_CHANGES,
  ...TOOL_SERVER_CHANGES,
  ...API_SERVER_CHANGES,
  ...SKILLS_CHANGES,
} as const satisfies Record<string, HermesChange>;

export type HermesChangeName = keyof typeof HERMES_CHANGES;

/** policy/hermes-versions.json: the supported range, and the versions the tests run and read. */
export interface HermesSupport {
  supported: string;
  run: readonly string[];
  read: readonly string[];
}

const Version = v.pipe(v.string(), v.check((s) => valid(s) !== null, 'a PEP 440 version'));
const SupportSchema = v.object({
  supported: v.pipe(v.string(), v.check((s) => validRange(s), 'a PEP 440 specifier')),
  run: v.pipe(v.array(Version), v.minLength(1)),
  read: v.array(Version),
});

/** The shipped policy file, the only one kept once read. */
const DEFAULT_SUPPORT_FILE = join(packageRoot(), 'policy', 'hermes-versions.json');
let support: HermesSupport | undefined;
/** The supported range: the shipped policy/hermes-versions.json, read once; another `file` is read each time. */
export function hermesSupport(file = DEFAULT_SUPPORT_FILE): HermesSupport {
  if (file !== DEFAULT_SUPPORT_FILE) return readSupport(file);
  support ??= readSupport(file);
  return support;
}

function readSupport(file: string): HermesSupport {
  const raw = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  delete raw.$comment;
  const parsed = v.parse(SupportSchema, raw);
  for (const version of [...parsed.run, ...parsed.read]) {
    if (!satisfies(version, parsed.supported)) throw new Error(`policy/hermes-versions.json: ${version} is outside the supported range ${parsed.supported}`);
  }
  return Object.freeze({ ...parsed, run: Object.freeze([...parsed.run]), read: Object.freeze([...parsed.read]) });
}

/** A Hermes version as the gateway follows it: a valid PEP 440 version other than Hermes' `0.0.0` placeholder. */
export function usableVersion(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const t = text.trim();
  return t !== '' && t !== '0.0.0' && valid(t) !== null ? t : undefined;
}

/** The Hermes the gateway fronts, for the families: its version (when known) and the changes it has. */
export class HermesRelease {
  /** `version`: the detected version; undefined when none was found (the newest the gateway knows is followed). */
  constructor(readonly version: string | undefined) {}

  /** Whether this Hermes has `change` (a Hermes of unknown version has every change). */
  has(change: HermesChangeName): boolean {
    const changes: Record<string, HermesChange> = HERMES_CHANGES;
    return this.version === undefined || gte(this.version, changes[change]!.since);
  }

  /** Whether the version is inside the supported range (an unknown version is not). */
  get supported(): boolean {
    return this.version !== undefined && satisfies(this.version, hermesSupport().supported);
  }

  /** "Hermes 0.22.2", or "the newest Hermes the gateway knows" for an unknown version. */
  describe(): string {
    return this.version ? `Hermes ${this.version}` : 'the newest Hermes the gateway knows';
  }
}
