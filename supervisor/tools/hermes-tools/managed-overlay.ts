import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { managedScopeDir } from '../../platform/hermes/managed-scope.js';
import { parsePyYaml } from '../../platform/yaml.js';

// The managed scope the gateway gives Hermes' tool server (and no other Hermes process): a
// directory named by HERMES_MANAGED_DIR whose config.yaml Hermes deep-merges, per leaf, on top of
// $HERMES_HOME/config.yaml (hermes_cli/managed_scope.py load_managed_config, merged by
// hermes_cli/config.py load_config). It pins the three settings an MCP tool server needs and a
// model's agent loop does not:
//
// - tools.tool_search.enabled: off. Hermes' tool search replaces every deferrable tool by the
//   tool_search/tool_describe/tool_call bridge (tools/tool_search.py assemble_tool_defs, called by
//   model_tools.get_tool_definitions). In 0.19.0 only MCP and plugin tools are deferrable; since
//   upstream's PR #97979 (merged 2026-09-02, in 0.22.2) built-in tools are too: image_generate is
//   deferred by default (hermes_cli/config_defaults.py tools.tool_search.defer), and a user's own
//   `defer` list can name any tool. The tool server exposes only its own named tools, not the bridge, so a deferred tool
//   silently disappears from its tools/list. A tool server's list is an MCP surface, not a model's
//   context: nothing is deferred there. (Off also skips the start-up context-length lookup.)
// - agent.image_input_mode: text. With a vision-capable main model, vision_analyze otherwise
//   answers a multimodal dict for the model's next turn (tools/vision_tools.py, the native fast
//   path), which the tool server's string-typed MCP wrapper cannot carry (an error result); an MCP
//   client needs the auxiliary model's analysis text.
// - web.keyless_rescue: false. Hermes 0.22 retries a failed configured web backend through a free
//   keyless tier of third-party services (tools/web_tools_rescue.py): queries and page URLs would
//   leave the host for services the operator never configured, and a broken backend would look
//   like a working one.
//
// HERMES_MANAGED_DIR replaces the administrator's own managed scope (their HERMES_MANAGED_DIR, else
// /etc/hermes; hermes_cli/managed_scope.py get_managed_dir), so that scope is carried over: its
// config.yaml is merged under the three leaves above (the administrator's other pins still apply)
// and its .env is copied as it is. A config.yaml Hermes could not parse is one Hermes ignores too
// (fail-open): the overlay then holds the three leaves alone, and the reason is reported.
//
// Those copies hold the administrator's secrets, so none outlives its source: there is one overlay
// directory per administrator's scope (named by a digest of the scope's path, never of its
// content), rewritten in place at every gateway start, its .env removed when the scope has none;
// and every other overlay in the state directory (another gateway of the same user, with another
// scope, or an earlier scope of this one) is rewritten then too from its scope as that is now, as
// Hermes would read it, so a rotated or removed key leaves no copy behind.

/** The settings the tool server runs with, whatever the user's or the administrator's config says. */
export const TOOL_SERVER_SETTINGS = {
  tools: { tool_search: { enabled: 'off' } },
  agent: { image_input_mode: 'text' },
  web: { keyless_rescue: false },
} as const;


/**
 * The overlays' directory under the gateway's private state directory: one subdirectory per
 * administrator's scope (`scope-<digest of its path>`, `no-scope` without one), so gateways sharing
 * a state directory with different scopes never give each other's tool servers their settings.
 */
export const OVERLAY_DIR = 'hermes-tools-managed';

/** In each overlay directory: the path of the administrator's scope it carries (empty: none). */
const SCOPE_FILE = 'scope';
const NO_SCOPE = 'no-scope';
const overlayName = (admin: string | undefined): string => (admin === undefined ? NO_SCOPE : `scope-${createHash('sha256').update(admin).digest('hex').slice(0, 16)}`);
/** An overlay directory of this scheme (anything else under OVERLAY_DIR is removed: an older scheme's copies). */
const OVERLAY_NAME = /^(?:no-scope|scope-[0-9a-f]{16})$/;

export interface ManagedOverlay {
  /** HERMES_MANAGED_DIR for the tool server; undefined when it could not be written (the tool server then runs with Hermes' own scope). */
  dir?: string;
  /** The administrator's managed scope carried into it, if there is one. */
  admin?: string;
  /** What of the administrator's scope could not be carried (Hermes would not have applied it either), or why no overlay was written. */
  warnings: string[];
}

const isMapping = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);

/** `base` with every leaf of `top` set over it (mappings merged key by key, anything else replaced), as Hermes' _deep_merge does. */
export function mergeLeaves(base: Record<string, unknown>, top: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(base)) Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
  for (const [k, v] of Object.entries(top)) {
    const below = Object.hasOwn(out, k) ? out[k] : undefined;
    const value = isMapping(v) && isMapping(below) ? mergeLeaves(below, v) : isMapping(v) ? mergeLeaves({}, v) : v;
    Object.defineProperty(out, k, { value, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** The administrator's config.yaml as Hermes reads it (a mapping, else nothing), or why it is not applied. */
function adminConfig(dir: string): { config: Record<string, unknown>; warning?: string } {
  const path = join(dir, 'config.yaml');
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? { config: {} } : { config: {}, warning: `${path} cannot be read (${code}); Hermes could not apply it either` };
  }
  let parsed: unknown;
  try {
    parsed = parsePyYaml(text.replace(/^\uFEFF/, '')); // Hermes reads it as utf-8-sig
  } catch (e) {
    return { config: {}, warning: `${path} is not valid YAML (${(e as Error).message.split('\n')[0]}); Hermes ignores it too` };
  }
  if (parsed === null || parsed === undefined) return { config: {} };
  if (!isMapping(parsed)) return { config: {}, warning: `${path} is not a mapping; Hermes ignores it too` };
  return { config: parsed };
}

/**
 * JSON text with every character outside printable ASCII escaped as YAML reads it (`\uXXXX`, and
 * `\UXXXXXXXX` beyond the BMP): PyYAML refuses a stream holding some raw characters (C1 controls,
 * U+FFFE) and reads others (U+0085, U+2028) as line breaks, and a file Hermes cannot parse would
 * lose the tool server's settings with the administrator's. In JSON such characters occur only
 * inside strings, where these escapes mean them.
 */
function asciiYaml(json: string): string {
  return json.replace(/[^\x20-\x7e\n]/gu, (c) => {
    const code = c.codePointAt(0)!;
    return code > 0xffff ? `\\U${code.toString(16).padStart(8, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/** Writes `data` to `path` (mode 0600) by a rename, so a tool server starting meanwhile reads the old file or the new one. */
function writeAtomically(path: string, data: string | Buffer): void {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, data, { mode: 0o600 });
  chmodSync(temporary, 0o600);
  renameSync(temporary, path);
}

/** Whether process `pid` exists (a temporary file of a live writer is its to rename). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** What the overlay of `admin` holds: config.yaml's text, the .env's bytes (if it has one), and what could not be carried. */
function overlayContent(admin: string | undefined): { config: string; dotenv?: Buffer; warnings: string[] } {
  const warnings: string[] = [];
  const base = admin ? adminConfig(admin) : { config: {} };
  if (base.warning) warnings.push(base.warning);
  const config = `${asciiYaml(JSON.stringify(mergeLeaves(base.config, TOOL_SERVER_SETTINGS), null, 2))}\n`;
  if (!admin) return { config, warnings };
  try {
    return { config, dotenv: readFileSync(join(admin, '.env')), warnings };
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT') warnings.push(`${join(admin, '.env')} cannot be read (${code}); Hermes could not read it either`);
    return { config, warnings };
  }
}

/**
 * Writes the overlay directory `dir` of the scope recorded as `recorded` (its path, '' for none)
 * with `content`, what that scope holds now: its record, config.yaml, and the .env copied or, when
 * the scope has none Hermes can read, removed. A temporary file a writer left behind (it died
 * between writing and renaming) is removed too.
 */
function writeOverlay(dir: string, recorded: string, content: ReturnType<typeof overlayContent>): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  writeAtomically(join(dir, SCOPE_FILE), recorded);
  writeAtomically(join(dir, 'config.yaml'), content.config);
  if (content.dotenv) writeAtomically(join(dir, '.env'), content.dotenv);
  else rmSync(join(dir, '.env'), { force: true });
  for (const name of readdirSync(dir)) {
    const pid = /\.(\d+)\.tmp$/.exec(name)?.[1];
    if (pid !== undefined && !alive(Number(pid))) rmSync(join(dir, name), { force: true });
  }
}

/**
 * Every other overlay under `root` rewritten from its scope as it is now (a scope that is no longer
 * a directory carries nothing: the three settings alone); a directory of an older scheme, which may
 * hold a copy of a .env its name does not trace, is removed. Returns what could not be done.
 */
function refreshOthers(root: string, own: string): string[] {
  const problems: string[] = [];
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    if (entry.name === own) continue;
    const dir = join(root, entry.name);
    try {
      if (!OVERLAY_NAME.test(entry.name)) {
        rmSync(dir, { recursive: true, force: true });
        continue;
      }
      let recorded: string;
      try {
        recorded = readFileSync(join(dir, SCOPE_FILE), 'utf8');
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') continue; // another gateway is writing it now
        throw e;
      }
      const admin = recorded === '' ? undefined : managedScopeDir({ hermesManagedDir: recorded });
      writeOverlay(dir, recorded, overlayContent(admin));
    } catch (e) {
      problems.push(`the tool server's managed scope ${dir} could not be brought up to date (${(e as Error).message}); it may still hold a copy of an earlier .env`);
    }
  }
  return problems;
}

/**
 * Writes the tool server's managed scope under `stateDir` (at every gateway start, so a change of
 * the administrator's scope is picked up by a restart, as Hermes picks it up): config.yaml (the
 * administrator's config with TOOL_SERVER_SETTINGS over it; JSON, which YAML reads) and a copy of
 * the administrator's .env when there is one; then brings every other overlay there up to date
 * with its own scope. `admin` is the administrator's managed scope
 * (platform/hermes/managed-scope.ts), undefined when there is none.
 */
export function writeToolServerOverlay(options: { stateDir: string; admin: string | undefined }): ManagedOverlay {
  const { admin } = options;
  const content = overlayContent(admin);
  const root = join(options.stateDir, OVERLAY_DIR);
  const name = overlayName(admin);
  const dir = join(root, name);
  try {
    mkdirSync(root, { recursive: true, mode: 0o700 });
    chmodSync(root, 0o700);
    writeOverlay(dir, admin ?? '', content);
  } catch (e) {
    return { ...(admin ? { admin } : {}), warnings: [...content.warnings, `the tool server's managed scope could not be written in ${dir} (${(e as Error).message}); it runs with ${admin ?? 'no managed scope'} instead, so Hermes' tool search may hide tools`] };
  }
  return { dir, ...(admin ? { admin } : {}), warnings: [...content.warnings, ...refreshOthers(root, name)] };
}
