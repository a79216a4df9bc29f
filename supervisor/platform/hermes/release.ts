import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gte, satisfies, valid, validRange } from '@renovatebot/pep440';
import * as v from 'valibot';
import { packageRoot } from '../../../shared/package-root.js';

// Which Hermes Agent the gateway fronts, as the tool families see it. Hermes changed after 0.19.0
// in ways the gateway follows (a default, a field, a guard); each such change is named here once,
// with the first release that has it, and a family asks `release.has(name)` instead of comparing
// versions itself. Where Hermes offers a capability to read (the columns of state.db, the tools
// its tool server lists, the routes its API server answers), the family reads that instead and
// needs no entry here. A Hermes whose version is not known (none installed, or one that does not
// say) is taken to be the newest the gateway knows: what a user installing Hermes today gets.

/** One change of Hermes' behaviour after 0.19.0. */
export interface HermesChange {
  /** The first Hermes release that has it (PEP 440). */
  since: string;
  /** What changed, and where in Hermes (file and function). */
  what: string;
}

// One table per surface; HERMES_CHANGES is their union. A `since` is the first release known to
// have the change: read from upstream's release tags where they could be read, otherwise the first
// release the tests run that has it (docs/hermes-versions.md says which are which).

/** read_file, write_file, patch, search_files (supervisor/tools/files/). */
const FILE_TOOL_CHANGES = {
  writeFileReadBeforeOverwrite: {
    since: '0.20.6',
    what:
      "write_file refuses to overwrite an existing file the task has not seen in full, unredacted, as it is now (stale_write_blocked), before anything is written; the task's own write or a patch from known content counts as seen (tools/file_tools_write_guards.py _stale_overwrite_blocker, tools/file_tools_read_tracking.py _mark_full_write_baseline; upstream PR #91238, merged 2026-08-21, after v0.20.5 of 2026-08-19)",
  },
  writeFileVerified: {
    since: '0.22.2',
    what: "write_file reads back what it wrote: `verified: true`, or an error when the on-disk sha256 differs (tools/file_operations.py _verify_written_hash; first seen in 0.22.2, the first version the tests run that has it)",
  },
  fileWritesNoCrossProfile: {
    since: '0.22.2',
    what: "write_file and patch no longer advertise `cross_profile` and the cross-profile soft guard is gone; the argument is still accepted and opts out of the sandbox-mirror guard (tools/file_tools.py WRITE_FILE_SCHEMA, tools/file_tools_write_guards.py _check_cross_profile_path; first seen in 0.22.2)",
  },
  fileWriteDocumentGuards: {
    since: '0.22.2',
    what: 'write_file and patch refuse Office/ODF/RTF/EPUB documents and SQLite side files, and overwriting an existing PDF or binary file (tools/file_tools_write_guards.py _check_binary_document_write; first seen in 0.22.2)',
  },
  fileWriteProtectedInstructions: {
    since: '0.22.2',
    what: 'write_file and patch need a human to approve writing AGENTS.md, CLAUDE.md, SOUL.md, .cursorrules or a file directly under a project .hermes/, and refuse without one (tools/file_tools_write_guards.py _check_protected_instruction_write; first seen in 0.22.2)',
  },
  fileWriteSshConfigApproval: {
    since: '0.22.2',
    what: 'write_file and patch need approval to write ~/.ssh/config, and refuse without a human (tools/file_tools_write_guards.py _check_approval_required_write, agent/file_safety.py build_write_approval_paths; first seen in 0.22.2)',
  },
  writeJsonConstants: {
    since: '0.22.2',
    what: 'write_file and patch refuse JSON that introduces NaN or Infinity (tools/file_operations.py _refuse_introduced_json_constant; first seen in 0.22.2)',
  },
  writeLoneSurrogate: {
    since: '0.22.2',
    what: "write_file and patch refuse content with a lone surrogate, after the read-before-overwrite guard, naming the character as Python shows it (tools/file_operations.py ShellFileOperations._reject_unencodable; first seen in 0.22.2)",
  },
  patchStricterFuzzy: {
    since: '0.22.2',
    what: "patch's fuzzy matching: context_aware needs the first, last and every non-blank line 80% similar; ambiguity lists the matches; new texts for an empty, whitespace-only or unchanged old_string; a `note` when a similarity strategy placed the edit; an edit already present is a success with `no_change` (tools/fuzzy_match.py fuzzy_find_and_replace, boundary_note, is_already_applied; tools/file_operations.py patch_replace; first seen in 0.22.2)",
  },
  patchV4aAbsoluteHeaders: {
    since: '0.22.2',
    what: "V4A patches apply their operations in sequence, name every file by its resolved absolute path (diff, files_created, files_deleted, lint), lint no Move, refuse an Add of an existing file, and note approximate hunk matches (tools/patch_parser.py apply_v4a_operations, _validate_operations; tools/file_tools.py _rewrite_v4a_patch_paths_for_host; first seen in 0.22.2)",
  },
  patchReplaceOnlySchema: {
    since: '0.22.2',
    what: "patch's base schema is replace-only (path, old_string, new_string, replace_all); the V4A mode is layered on for OpenAI-family main models only, and the handler takes both from any model (tools/file_tools.py PATCH_SCHEMA, _patch_schema_overrides, _is_openai_family_main; first seen in 0.22.2)",
  },
  searchFilesOrder: {
    since: '0.22.2',
    what: "search_files takes `order` ('discovery', the default: the walk's own order, no sort; 'modified': newest first), lists matching directories beside files, and reports a file search as truncated exactly when more exist, counting at most offset+limit+1 (tools/file_tools.py SEARCH_FILES_SCHEMA, tools/file_operations_search.py _search_files_rg, _search_directories_with_find; upstream issue #54347; first seen in 0.22.2)",
  },
  searchFilesHintField: {
    since: '0.22.2',
    what: 'search_files puts its truncation hint in the JSON as `_hint` instead of text after it (tools/file_tools.py search_tool; upstream issue #90322, fixed by PR #104472 of 2026-09-06, after v0.21.0 of 2026-08-31: the release with it is not established, so first seen in 0.22.2)',
  },
  searchFilesMultiline: {
    since: '0.22.2',
    what: 'search_files turns on multiline matching for a regex with \\n, with a warning that says so (tools/file_operations_search.py _search_with_rg; first seen in 0.22.2)',
  },
  searchFilesZeroMatchProbes: {
    since: '0.22.2',
    what: 'a content search that finds nothing says where the pattern does match: case-insensitively, in hidden or ignored files, or as a literal (tools/file_operations_search.py _zero_match_probe; first seen in 0.22.2)',
  },
} as const satisfies Record<string, HermesChange>;

/** terminal, process_manage, execute_code's terminal (supervisor/tools/processes/, execute-code/). */
const TERMINAL_CHANGES = {} as const satisfies Record<string, HermesChange>;

/** session_search over state.db (supervisor/tools/guarded/session-search/). */
const SESSION_SEARCH_CHANGES = {} as const satisfies Record<string, HermesChange>;

/** cronjob (supervisor/tools/guarded/cron/). */
const CRON_CHANGES = {} as const satisfies Record<string, HermesChange>;

/** Honcho identity (supervisor/tools/memory/). */
const HONCHO_CHANGES = {} as const satisfies Record<string, HermesChange>;

/** Hermes' tool server (supervisor/tools/hermes-tools/) and its MCP client (hermes-mcp-lsp). */
const TOOL_SERVER_CHANGES = {} as const satisfies Record<string, HermesChange>;

/** Hermes' API server behind the agent-task tools (supervisor/tools/agent-tasks/). */
const API_SERVER_CHANGES = {} as const satisfies Record<string, HermesChange>;

/** Every change the gateway follows by version. */
export const HERMES_CHANGES = {
  ...FILE_TOOL_CHANGES,
  ...TERMINAL_CHANGES,
  ...SESSION_SEARCH_CHANGES,
  ...CRON_CHANGES,
  ...HONCHO_CHANGES,
  ...TOOL_SERVER_CHANGES,
  ...API_SERVER_CHANGES,
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

let support: HermesSupport | undefined;
/** The supported range (policy/hermes-versions.json), read once. */
export function hermesSupport(file = join(packageRoot(), 'policy', 'hermes-versions.json')): HermesSupport {
  if (support && file === join(packageRoot(), 'policy', 'hermes-versions.json')) return support;
  const raw = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  delete raw.$comment;
  const parsed = v.parse(SupportSchema, raw);
  for (const version of [...parsed.run, ...parsed.read]) {
    if (!satisfies(version, parsed.supported)) throw new Error(`policy/hermes-versions.json: ${version} is outside the supported range ${parsed.supported}`);
  }
  support = Object.freeze({ ...parsed, run: Object.freeze([...parsed.run]), read: Object.freeze([...parsed.read]) });
  return support;
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
