import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as v from 'valibot';
import { packageRoot } from '../../../shared/package-root.js';
import type { SourceName } from '../tool-types.js';

// The default-deny tool policy is data (policy/tool-policy.json); this is its typed reader.
const Name = v.pipe(v.string(), v.regex(/^[a-z][a-z0-9_]{0,63}$/));
const ToolPolicySchema = v.object({
  allow: v.array(Name),
  filteredSources: v.array(v.picklist(['native', 'hermes', 'guarded', 'memory', 'graph', 'lsp', 'jobs', 'gateway', 'embedded', 'agents', 'browser'])),
  forbidden: v.array(Name),
  forbiddenPrefixes: v.array(v.string()),
  public: v.pipe(v.array(Name), v.length(6)),
});

export interface ToolPolicy {
  allow: ReadonlySet<string>;
  filteredSources: ReadonlySet<SourceName>;
  forbidden: ReadonlySet<string>;
  forbiddenPrefixes: readonly string[];
  /** The six public tools, in the order tools/list returns them. */
  publicOrder: readonly string[];
}

export function isForbidden(policy: ToolPolicy, name: string): boolean {
  return policy.forbidden.has(name) || policy.forbiddenPrefixes.some((p) => name.startsWith(p));
}

export function loadToolPolicy(file = join(packageRoot(), 'policy', 'tool-policy.json')): ToolPolicy {
  const raw = JSON.parse(readFileSync(file, 'utf8'));
  delete raw.$comment;
  const p = v.parse(ToolPolicySchema, raw);
  return Object.freeze({
    allow: new Set(p.allow),
    filteredSources: new Set(p.filteredSources),
    forbidden: new Set(p.forbidden),
    forbiddenPrefixes: p.forbiddenPrefixes,
    publicOrder: p.public,
  });
}
