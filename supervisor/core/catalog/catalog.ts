import Ajv2020Module, { type ErrorObject } from 'ajv/dist/2020.js';
import { GatewayError, ErrorCode } from '../../../shared/errors.js';
import type { ToolDefinition, ToolSource, SourceName } from '../tool-types.js';
import { isJsonObject } from '../../platform/json-object.js';
import { isForbidden, type ToolPolicy } from './policy.js';

// The catalog is assembled once at startup from the registered sources, filtered by the
// default-deny policy, and frozen: no tool is added, removed or changed until restart, so the
// schemas a client discovered stay true for the life of the process.

export interface CatalogEntry {
  readonly tool: ToolDefinition;
  readonly source: SourceName;
  /** Whether the source's backend is configured here (ToolSource.configured). */
  readonly configured: boolean;
  readonly validate: ArgumentValidator;
}

interface AssembleReport {
  /** Names a filtered source offered that the policy does not admit (logged, never catalogued). */
  dropped: Array<{ source: SourceName; name: string; reason: 'not_allowlisted' | 'forbidden' }>;
}

export class Catalog {
  private constructor(
    private readonly entries: ReadonlyMap<string, CatalogEntry>,
    readonly report: AssembleReport,
  ) {}

  static async assemble(sources: readonly ToolSource[], policy: ToolPolicy): Promise<Catalog> {
    const entries = new Map<string, CatalogEntry>();
    const report: AssembleReport = { dropped: [] };
    const seenSources = new Set<SourceName>();
    for (const source of sources) {
      if (seenSources.has(source.name)) throw new Error(`catalog: source "${source.name}" registered twice`);
      seenSources.add(source.name);
      const filtered = policy.filteredSources.has(source.name);
      for (const tool of await source.tools((name) => entries.has(name))) {
        if (isForbidden(policy, tool.name)) {
          // A filtered upstream may well advertise a forbidden tool (Hermes has browser_cdp);
          // a gateway-owned source doing so is a bug, and failing startup is the safe answer.
          if (!filtered) throw new Error(`catalog: source "${source.name}" offers forbidden tool "${tool.name}"`);
          report.dropped.push({ source: source.name, name: tool.name, reason: 'forbidden' });
          continue;
        }
        if (filtered && !policy.allow.has(tool.name)) {
          report.dropped.push({ source: source.name, name: tool.name, reason: 'not_allowlisted' });
          continue;
        }
        const existing = entries.get(tool.name);
        if (existing) {
          throw new Error(
            `catalog: tool name collision "${tool.name}" between sources "${existing.source}" and "${source.name}"`,
          );
        }
        entries.set(tool.name, Object.freeze({ tool: Object.freeze(tool), source: source.name, configured: source.configured !== false, validate: compileArgumentValidator(tool) }));
      }
    }
    return new Catalog(entries, report);
  }

  get(name: string): CatalogEntry | undefined {
    return this.entries.get(name);
  }

  has(name: string): boolean {
    return this.entries.has(name);
  }

  names(): string[] {
    return [...this.entries.keys()].sort();
  }

  all(): CatalogEntry[] {
    return this.names().map((n) => this.entries.get(n)!);
  }

  get size(): number {
    return this.entries.size;
  }
}

// One JSON Schema 2020-12 validator (ajv) for every tool's input, compiled once when the catalog
// is frozen: a schema that does not compile fails startup instead of failing a call later.
// No coercion and no defaults are applied by ajv: `limit: true` is an error, never the number 1. A
// tool that mirrors a Hermes function repairing its arguments (ToolDefinition.coerceArguments) does
// that repair first, on a copy, and the repaired arguments are validated.
const Ajv2020 = Ajv2020Module as unknown as typeof Ajv2020Module.default;
const ajv = new Ajv2020({ allErrors: false, strict: false, coerceTypes: false, useDefaults: false, validateFormats: false });

export type ArgumentValidator = (args: unknown) => Record<string, unknown>;

function describe(errors: ErrorObject[] | null | undefined): string {
  const e = errors?.[0];
  if (!e) return 'arguments do not match the schema';
  const at = e.instancePath || '(root)';
  if (e.keyword === 'additionalProperties') return `${at}: unknown property "${String(e.params.additionalProperty)}"`;
  if (e.keyword === 'required') return `${at}: missing required property "${String(e.params.missingProperty)}"`;
  return `${at} ${e.message ?? 'is invalid'}`;
}

export function compileArgumentValidator(tool: Pick<ToolDefinition, 'name' | 'inputSchema' | 'coerceArguments'>): ArgumentValidator {
  let check;
  try {
    check = ajv.compile(tool.inputSchema);
  } catch (e) {
    throw new Error(`catalog: input schema of "${tool.name}" does not compile: ${(e as Error).message}`);
  }
  return (args: unknown) => {
    const raw = args ?? {};
    const value = tool.coerceArguments && isJsonObject(raw) ? tool.coerceArguments({ ...raw }) : raw;
    if (!check(value)) {
      throw new GatewayError(ErrorCode.INVALID_ARGUMENTS, `invalid arguments for ${tool.name}: ${describe(check.errors)}`);
    }
    return value as Record<string, unknown>;
  };
}
