import { statSync } from 'node:fs';
import { join } from 'node:path';
import { hermesExpansionEnvironment, type GatewayConfig } from '../../platform/config.js';
import { defaultLimits } from '../../../shared/limits.js';
import { readConfigYaml } from '../../platform/hermes-config.js';
import { pythonStrip } from '../../../shared/python-strip.js';
import { compileGlob, type Glob } from './fnmatch.js';
import { managedScopeDir } from '../../platform/hermes/managed-scope.js';

// The operator's own command rules: `approvals.deny` in Hermes' config.yaml, a list of globs that
// Hermes blocks whatever else is configured (tools/approval.py _match_user_deny_rule in 0.19,
// tools/approval_floors.py later): not even yolo or approvals.mode off lifts them. The gateway has
// neither, and applies them to every command it is asked to run.
//
// Read as Hermes reads them (hermes_cli/config.py load_config): $HERMES_HOME/config.yaml, and the
// managed scope's config.yaml ($HERMES_MANAGED_DIR when it is set, else /etc/hermes, when that is a
// directory: hermes_cli/managed_scope.py get_managed_dir), each string with `${VAR}` (and, as later
// Hermes also reads it, `${env:VAR}`) expanded from the environment Hermes has by then: its process
// environment under $HERMES_HOME/.env under the managed scope's .env (load_hermes_dotenv loads both
// with override, the managed one last), an unset variable kept as written. Where Hermes lets a managed list replace the user's, the gateway applies both: never
// fewer rules than either file names. The files are looked at (stat) on every check and read again
// when they changed, so an edit applies to the next command without a restart. A file that cannot
// be read or parsed keeps the rules last read from it in this process (as Hermes keeps its
// last-known-good config); with none, and for a `deny` that is not a list of strings, every command
// is refused until it is fixed, saying why: a rule the operator wrote is never silently dropped.

/** One glob, as written (stripped) and as it is matched (each spelling Hermes versions give it). */
export interface DenyRule {
  /** The glob after expansion, as Hermes names it in its refusal. */
  readonly glob: string;
  /** Where it was read (a config.yaml path). */
  readonly file: string;
  /** The lowercased globs matched: the expansion of every supported Hermes (usually one). */
  readonly compiled: readonly Glob[];
}

export type DenyRules = { readonly rules: readonly DenyRule[] } | { readonly problem: string };

/** What the guard asks for the rules in force now. */
export interface DenyRuleSource {
  current(): DenyRules;
}

/** The settings the rules are read with (GatewayConfig's). */
export type DenyRuleConfig = Pick<GatewayConfig, 'hermesHome' | 'hermesManagedDir' | 'inheritedEnvironment'> & Partial<Pick<GatewayConfig, 'hermesDotenv' | 'limits'>>;

interface FileState {
  signature: string;
  result: { rules: DenyRule[] } | { problem: string };
}

const ENV_REF = /\$\{([^}]+)\}/g;

/**
 * `value` with `${…}` references expanded: every spelling a supported Hermes gives it. 0.19 looks
 * the whole body up as a variable name; later Hermes strips it, reads `${env:NAME}` as NAME and
 * leaves other sources (`${vault:…}`) as written. An unset variable stays as written in both.
 */
export function expansions(value: string, env: Readonly<Record<string, string>>): string[] {
  const oldest = value.replace(ENV_REF, (raw, inner: string) => env[inner] ?? raw);
  const newest = value.replace(ENV_REF, (raw, body: string) => {
    const inner = body.trim();
    let name: string | undefined;
    if (inner.startsWith('env:')) name = inner.slice(4).trim() || undefined;
    else if (!/^[a-z][a-z0-9_-]*:/.test(inner)) name = inner;
    return name !== undefined ? (env[name] ?? raw) : raw;
  });
  return oldest === newest ? [oldest] : [oldest, newest];
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  return `a ${typeof value} (${JSON.stringify(value)})`;
}

/** The rules of one parsed config document, or why its `approvals.deny` cannot be used. */
export function rulesOf(doc: unknown, file: string, env: Readonly<Record<string, string>>): { rules: DenyRule[] } | { problem: string } {
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) return { rules: [] };
  const approvals = (doc as Record<string, unknown>).approvals;
  // Hermes reads `approvals.get("deny")` of a mapping; anything else in `approvals` holds no rules.
  if (approvals === null || typeof approvals !== 'object' || Array.isArray(approvals)) return { rules: [] };
  const deny = (approvals as Record<string, unknown>).deny;
  if (deny === undefined || deny === null || deny === false || deny === '') return { rules: [] };
  if (!Array.isArray(deny)) return { problem: `approvals.deny in ${file} must be a list of glob strings, but it is ${describe(deny)}` };
  const rules: DenyRule[] = [];
  for (const [i, item] of deny.entries()) {
    if (typeof item !== 'string') {
      return { problem: `approvals.deny in ${file} must be a list of glob strings, but item ${i + 1} is ${describe(item)} (quote a rule that YAML reads as something else)` };
    }
    const spellings = [...new Set(expansions(item, env).map(pythonStrip))].filter((s) => s !== '');
    if (spellings.length === 0) continue;
    try {
      rules.push({ glob: spellings.at(-1)!, file, compiled: spellings.map((s) => compileGlob(s.toLowerCase())) });
    } catch (e) {
      return { problem: `approvals.deny in ${file}: the rule ${JSON.stringify(item)} is not a glob Hermes can match (${(e as Error).message})` };
    }
  }
  return { rules };
}


/** The operator's approvals.deny rules from the user and managed config.yaml, re-read when a file changes. */
export class OperatorDenyRules implements DenyRuleSource {
  private readonly states = new Map<string, FileState>();
  /** The rules last read from each file, served while a later version of it cannot be read. */
  private readonly lastGood = new Map<string, DenyRule[]>();

  /** What `${VAR}` expands from (hermesExpansionEnvironment). */
  private readonly env: Readonly<Record<string, string>>;

  /** The config files whose rules apply: the user's, then the managed scope's. */
  private readonly configFiles: readonly string[];

  constructor(private readonly config: DenyRuleConfig) {
    this.env = hermesExpansionEnvironment({ inheritedEnvironment: config.inheritedEnvironment, hermesDotenv: config.hermesDotenv ?? {} });
    // Whether the managed scope is a directory is an installation fact, decided once; the files
    // themselves are read again whenever they change.
    const managed = managedScopeDir(config);
    this.configFiles = [join(config.hermesHome, 'config.yaml'), ...(managed ? [join(managed, 'config.yaml')] : [])];
  }

  /** The config files whose rules apply: the user's, then the managed scope's. */
  files(): readonly string[] {
    return this.configFiles;
  }

  current(): DenyRules {
    const rules: DenyRule[] = [];
    for (const file of this.files()) {
      const result = this.fileRules(file);
      if ('problem' in result) return result;
      rules.push(...result.rules);
    }
    return { rules };
  }

  private fileRules(file: string): { rules: DenyRule[] } | { problem: string } {
    let signature: string;
    try {
      const st = statSync(file, { bigint: true });
      signature = `${st.dev}:${st.ino}:${st.mtimeNs}:${st.ctimeNs}:${st.size}`;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { rules: [] };
      signature = `error:${(e as NodeJS.ErrnoException).code ?? ''}`;
    }
    const known = this.states.get(file);
    if (known && known.signature === signature) return known.result;
    const read = readConfigYaml(file, true, (this.config.limits ?? defaultLimits()).hermesConfigMaxBytes);
    let result: FileState['result'];
    if ('missing' in read) {
      result = { rules: [] }; // removed since the stat
    } else if ('error' in read) {
      const kept = this.lastGood.get(file);
      result = kept ? { rules: kept } : { problem: `Hermes' config ${file} ${read.error}, so its approvals.deny rules cannot be applied` };
    } else {
      result = rulesOf(read.doc, file, this.env);
      if ('rules' in result) this.lastGood.set(file, result.rules);
    }
    this.states.set(file, { signature, result });
    return result;
  }
}

const sources = new WeakMap<object, OperatorDenyRules>();
/** The one rule source of a configuration (its cache of the files lives as long as the configuration). */
export function denyRulesFor(config: DenyRuleConfig): OperatorDenyRules {
  let source = sources.get(config);
  if (!source) {
    source = new OperatorDenyRules(config);
    sources.set(config, source);
  }
  return source;
}
