import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
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

/** The settings the tool server runs with, whatever the user's or the administrator's config says. */
export const TOOL_SERVER_SETTINGS = {
  tools: { tool_search: { enabled: 'off' } },
  agent: { image_input_mode: 'text' },
  web: { keyless_rescue: false },
} as const;


/**
 * The overlays' directory under the gateway's private state directory: one subdirectory per
 * content (named by its digest), so gateways sharing a state directory never rewrite each other's.
 */
export const OVERLAY_DIR = 'hermes-tools-managed';

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

/**
 * Writes the tool server's managed scope under `stateDir` (at every gateway start, so a change of
 * the administrator's scope is picked up by a restart, as Hermes picks it up): config.yaml (the
 * administrator's config with TOOL_SERVER_SETTINGS over it; JSON, which YAML reads) and a copy of
 * the administrator's .env when there is one. `admin` is the administrator's managed scope
 * (platform/hermes/managed-scope.ts), undefined when there is none.
 */
export function writeToolServerOverlay(options: { stateDir: string; admin: string | undefined }): ManagedOverlay {
  const { admin } = options;
  const warnings: string[] = [];
  const base = admin ? adminConfig(admin) : { config: {} };
  if (base.warning) warnings.push(base.warning);
  const config = `${asciiYaml(JSON.stringify(mergeLeaves(base.config, TOOL_SERVER_SETTINGS), null, 2))}\n`;
  let dotenv: Buffer | undefined;
  if (admin) {
    try {
      dotenv = readFileSync(join(admin, '.env'));
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT') warnings.push(`${join(admin, '.env')} cannot be read (${code}); Hermes could not read it either`);
    }
  }
  const digest = createHash('sha256').update(config).update(dotenv ? Buffer.concat([Buffer.from('\0'), dotenv]) : '').digest('hex').slice(0, 16);
  const dir = join(options.stateDir, OVERLAY_DIR, digest);
  try {
    for (const d of [join(options.stateDir, OVERLAY_DIR), dir]) {
      mkdirSync(d, { recursive: true, mode: 0o700 });
      chmodSync(d, 0o700);
    }
    writeAtomically(join(dir, 'config.yaml'), config);
    if (dotenv) writeAtomically(join(dir, '.env'), dotenv);
  } catch (e) {
    return { ...(admin ? { admin } : {}), warnings: [...warnings, `the tool server's managed scope could not be written in ${dir} (${(e as Error).message}); it runs with ${admin ?? 'no managed scope'} instead, so Hermes' tool search may hide tools`] };
  }
  return { dir, ...(admin ? { admin } : {}), warnings };
}
