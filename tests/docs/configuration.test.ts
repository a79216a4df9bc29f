import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { defaultLimits, envNameFor } from '../../shared/limits.js';
import { packageRoot } from '../../shared/package-root.js';
import { BROWSER_ENV_KEYS, HONCHO_ENV_KEYS } from '../../supervisor/platform/config.js';

// docs/configuration.md is the reference of every setting: each environment variable the gateway
// reads (supervisor/platform/config.ts, the only reader, with environment.ts and the settings it
// parses in settings/) and each limit of policy/default-limits.json with its variable and default.
// The variables are read from the sources as written (`env.NAME`, `env['NAME']`), plus the key
// lists config.ts reads in a loop; a new dynamic read (`env[expression]`) fails here until its
// names are listed below.

const root = packageRoot();
const PAGE = readFileSync(join(root, 'docs', 'configuration.md'), 'utf8');
const READERS = [
  'supervisor/platform/config.ts',
  'supervisor/platform/environment.ts',
  ...readdirSync(join(root, 'supervisor', 'platform', 'settings'))
    .filter((f) => f.endsWith('.ts'))
    .map((f) => `supervisor/platform/settings/${f}`),
];
/** The dynamic reads (`env[x]`) the sources make, and the names each one reads. */
const DYNAMIC_READS: Record<string, readonly string[]> = {
  key: [...HONCHO_ENV_KEYS, ...BROWSER_ENV_KEYS],
  // HERMES_MCP_GRAPH_ENV_PASSTHROUGH's names, the operator's own; its default is documented.
  name: ['TTSC_GRAPH_BINARY'],
};

function variablesRead(): { names: Set<string>; dynamic: Set<string> } {
  const names = new Set<string>();
  const dynamic = new Set<string>();
  for (const file of READERS) {
    const text = readFileSync(join(root, file), 'utf8');
    for (const m of text.matchAll(/\benv\??\.([A-Z_][A-Z0-9_]*)\b/g)) names.add(m[1]!);
    for (const m of text.matchAll(/\benv\[\s*(['"])([A-Z_][A-Z0-9_]*)\1\s*\]/g)) names.add(m[2]!);
    for (const m of text.matchAll(/\benv\[\s*([^\]'"][^\]]*)\]/g)) dynamic.add(m[1]!.trim());
  }
  return { names, dynamic };
}

/** Whether `name` appears inside a code span of the page (`NAME`, `$NAME/...`, `NAME=value`). */
function documented(name: string): boolean {
  return new RegExp('`[^`\\n]*\\b' + name + '\\b[^`\\n]*`').test(PAGE);
}

test('the sources read the variables this test knows how to find', () => {
  const { names, dynamic } = variablesRead();
  assert.ok(names.size > 40 && names.has('HERMES_MCP_ROOTS') && names.has('HERMES_MCP_PUBLIC_URL') && names.has('HERMES_HOME'), [...names].join(' '));
  assert.deepEqual([...dynamic].sort(), Object.keys(DYNAMIC_READS).sort(), 'a new env[...] read: list the names it reads in DYNAMIC_READS');
});

test('every environment variable the gateway reads is in docs/configuration.md', () => {
  const { names } = variablesRead();
  const all = [...names, ...Object.values(DYNAMIC_READS).flat()];
  const missing = all.filter((name) => !documented(name));
  assert.deepEqual(missing, [], 'add them to docs/configuration.md, Environment variables');
});

test('every limit is in docs/configuration.md with its variable and default', () => {
  const limits = defaultLimits();
  const rows = PAGE.split('\n');
  const wrong: string[] = [];
  for (const [key, value] of Object.entries(limits)) {
    const row = rows.find((r) => r.startsWith(`| \`${key}\` |`));
    if (!row) wrong.push(`${key}: no row`);
    else if (!row.startsWith(`| \`${key}\` | \`${envNameFor(key)}\` | ${value} |`)) wrong.push(`${key}: the row should read | \`${key}\` | \`${envNameFor(key)}\` | ${value} | …`);
  }
  assert.ok(Object.keys(limits).length > 100);
  assert.deepEqual(wrong, [], 'docs/configuration.md, Limits');
});
