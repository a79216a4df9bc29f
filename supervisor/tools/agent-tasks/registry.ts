import { readFileSync, statSync } from 'node:fs';
import * as v from 'valibot';
import { parseStrictYaml } from '../../platform/yaml.js';
import { baseUrlProblem, normalizeBaseUrl } from './base-url.js';
import { privateFileProblem, readEnvFile, type BridgeSettings } from './settings.js';

// The agent registry: a YAML file outside the code (AGENTS_FILE, mode 0600) listing the Hermes
// agents tasks may go to. It is re-read whenever its mtime, size or inode changes; a file that
// does not validate keeps the last good state and is reported as `registry_error`; a missing file
// degrades to one synthetic default agent, the local Hermes API server of HERMES_ENV_PATH
// (`degraded: "no_registry"`). Keys are named (key_env) or pointed at (key_file, 0600; key_env_file,
// a 0600 dotenv file such as a Hermes profile's own .env, read for key_env or API_SERVER_KEY),
// never written in the file: the schema refuses any other field, so a pasted key is an error, not a
// leak. key_env_file is this gateway's addition: hermes-mcp-bridge's registry has no such field.

export const AGENT_NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/;

const Agent = v.strictObject({
  name: v.pipe(v.string(), v.regex(AGENT_NAME, 'name must match ^[a-z0-9][a-z0-9._-]{0,63}$')),
  description: v.optional(v.pipe(v.string(), v.maxLength(500)), ''),
  capabilities: v.optional(v.pipe(v.array(v.pipe(v.string(), v.maxLength(64))), v.maxLength(32)), []),
  kind: v.optional(v.picklist(['local', 'remote']), 'local'),
  profile: v.optional(v.pipe(v.string(), v.regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/))),
  base_url: v.pipe(v.string(), v.check((s) => baseUrlProblem(s) === undefined, (issue) => baseUrlProblem(String(issue.input)) ?? 'invalid base_url')),
  key_env: v.optional(v.pipe(v.string(), v.regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, 'key_env must be a variable name'))),
  key_file: v.optional(v.pipe(v.string(), v.check((s) => s.startsWith('/'), 'key_file must be an absolute path'))),
  key_env_file: v.optional(v.pipe(v.string(), v.check((s) => s.startsWith('/'), 'key_env_file must be an absolute path'))),
  default: v.optional(v.boolean()),
});

const Registry = v.pipe(
  v.strictObject({ default: v.optional(v.string()), agents: v.pipe(v.array(Agent), v.minLength(1), v.maxLength(64)) }),
  v.check((r) => new Set(r.agents.map((a) => a.name)).size === r.agents.length, 'agent names must be unique'),
  v.check((r) => r.default === undefined || r.agents.some((a) => a.name === r.default), 'default must name a listed agent'),
  // One default, stated once or twice consistently: which agent gets a task must never depend on
  // the order of the rules above.
  v.check((r) => r.agents.filter((a) => a.default === true).length <= 1, 'at most one agent may have default: true'),
  v.check(
    (r) => r.default === undefined || r.agents.every((a) => a.default !== true || a.name === r.default),
    (issue) => `default names ${(issue.input as { default?: string }).default} but another agent has default: true`,
  ),
  v.check((r) => r.agents.every((a) => !(a.key_env && a.key_file)), 'an agent has key_env or key_file, not both'),
  v.check((r) => r.agents.every((a) => !(a.key_env_file && a.key_file)), 'an agent has key_env_file or key_file, not both'),
);

export interface AgentEntry {
  name: string;
  description: string;
  capabilities: string[];
  kind: 'local' | 'remote';
  profile?: string;
  baseUrl: string;
  keyEnv?: string;
  keyFile?: string;
  /** A dotenv file holding the key as `keyEnv` (default API_SERVER_KEY): a Hermes profile's own .env. */
  keyEnvFile?: string;
  /** The synthetic default's key, straight from HERMES_ENV_PATH. */
  inlineKey?: string;
}

export interface RegistryView {
  agents: readonly AgentEntry[];
  defaultName: string;
  degraded?: 'no_registry';
  /** Why the file on disk is not the state in use (the last good one, or the synthetic default). */
  error?: string;
}

export type KeyResolution = { key: string } | { reason: 'missing_credentials' };

export class AgentRegistry {
  private signature: string | undefined;
  private good: RegistryView | undefined;
  private view: RegistryView;

  constructor(
    private readonly settings: BridgeSettings,
    /** The gateway's own environment (config.inheritedEnvironment), the first place key_env is looked up. */
    private readonly environment: Readonly<Record<string, string>>,
  ) {
    this.view = this.fallback();
  }

  /** The registry as it is now (re-read if the file changed since the last call). */
  current(): RegistryView {
    const stat = statSync(this.settings.agentsFile, { throwIfNoEntry: false });
    if (!stat) {
      this.signature = undefined;
      this.good = undefined;
      return (this.view = this.fallback());
    }
    const signature = `${stat.mtimeMs}:${stat.size}:${stat.ino}:${stat.mode}`;
    if (signature === this.signature) return this.view;
    this.signature = signature;
    try {
      // The registry names where keys live, so it is as private as they are (a symlink is followed).
      if (!stat.isFile()) throw new Error('not a regular file');
      if ((stat.mode & 0o077) !== 0) throw new Error(`mode ${(stat.mode & 0o777).toString(8)} is readable by others; run chmod 600 ${this.settings.agentsFile}`);
      this.good = this.parse(readFileSync(this.settings.agentsFile, 'utf8'));
      this.view = this.good;
    } catch (e) {
      this.view = { ...(this.good ?? this.fallback()), error: `${this.settings.agentsFile}: ${(e as Error).message}` };
    }
    return this.view;
  }

  find(name: string | undefined): AgentEntry | undefined {
    const view = this.current();
    return view.agents.find((a) => a.name === (name ?? view.defaultName));
  }

  /** The agent's API key, read now (a key_file or key_env_file may change without the registry changing). */
  keyOf(agent: AgentEntry): KeyResolution {
    if (agent.inlineKey) return { key: agent.inlineKey };
    if (agent.keyEnvFile) {
      // Only that file is asked (never the environment): it is where Hermes reads the profile's key.
      // Inside the try: looking at the path can fail too (EACCES, ENOTDIR), and that is no key either.
      try {
        if (privateFileProblem(agent.keyEnvFile)) return { reason: 'missing_credentials' };
        const key = readEnvFile(agent.keyEnvFile)[agent.keyEnv ?? 'API_SERVER_KEY']?.trim();
        return key ? { key } : { reason: 'missing_credentials' };
      } catch {
        return { reason: 'missing_credentials' };
      }
    }
    if (agent.keyEnv) {
      const value = this.environment[agent.keyEnv] ?? this.settings.keyValues[agent.keyEnv];
      return value ? { key: value } : { reason: 'missing_credentials' };
    }
    if (agent.keyFile) {
      // A key file readable by others, a symlink, a non-file or a path that cannot be looked at is no key at all.
      try {
        if (privateFileProblem(agent.keyFile)) return { reason: 'missing_credentials' };
        const key = readFileSync(agent.keyFile, 'utf8').trim();
        return key ? { key } : { reason: 'missing_credentials' };
      } catch {
        return { reason: 'missing_credentials' };
      }
    }
    return { reason: 'missing_credentials' };
  }

  private parse(text: string): RegistryView {
    const raw: unknown = parseStrictYaml(text);
    const result = v.safeParse(Registry, raw);
    if (!result.success) {
      const issue = result.issues[0]!;
      const at = v.getDotPath(issue);
      throw new Error(`invalid registry${at ? ` at ${at}` : ''}: ${issue.message}`);
    }
    const agents = result.output.agents.map(
      (a): AgentEntry => ({
        name: a.name,
        description: a.description,
        capabilities: a.capabilities,
        kind: a.kind,
        ...(a.profile ? { profile: a.profile } : {}),
        baseUrl: normalizeBaseUrl(a.base_url),
        ...(a.key_env ? { keyEnv: a.key_env } : {}),
        ...(a.key_file ? { keyFile: a.key_file } : {}),
        ...(a.key_env_file ? { keyEnvFile: a.key_env_file } : {}),
      }),
    );
    const defaultName = result.output.default ?? result.output.agents.find((a) => a.default)?.name ?? agents[0]!.name;
    return { agents, defaultName };
  }

  /** One agent: the local Hermes API server of HERMES_ENV_PATH (0.0.0.0/:: listeners are reached on loopback). */
  private fallback(): RegistryView {
    const { host, port, key } = this.settings.api;
    const literal = host === '0.0.0.0' || host === 'localhost' ? '127.0.0.1' : host === '::' ? '::1' : host;
    const url = `http://${literal.includes(':') ? `[${literal}]` : literal}:${port}`;
    const agent: AgentEntry = {
      name: 'hermes',
      description: 'The local Hermes agent (API server from HERMES_ENV_PATH)',
      capabilities: [],
      kind: 'local',
      baseUrl: url,
      ...(key && baseUrlProblem(url) === undefined ? { inlineKey: key } : {}),
    };
    return { agents: [agent], defaultName: 'hermes', degraded: 'no_registry' };
  }
}
