import { createRequire } from 'node:module';

// The one place the gateway loads `yaml`. On first use (its CommonJS build, so callers stay
// synchronous): an idle gateway without a Hermes config.yaml, skills or a bridge registry never
// needs it, and every module loaded at startup counts against the idle-RSS budget (~9 MB here).
let yamlModule: typeof import('yaml') | undefined;
const yamlLib = (): typeof import('yaml') => (yamlModule ??= createRequire(import.meta.url)('yaml') as typeof import('yaml'));

/**
 * A YAML document as Hermes reads it: PyYAML (`yaml.safe_load`) implements YAML 1.1 (`yes`/`no`
 * are booleans) and keeps the last of duplicate keys. Throws the first parse error.
 */
export function parsePyYaml(text: string): unknown {
  const doc = yamlLib().parseDocument(text, { version: '1.1', uniqueKeys: false, prettyErrors: false });
  if (doc.errors.length > 0) throw doc.errors[0];
  return doc.toJS({ maxAliasCount: 100 });
}

/** A YAML 1.2 document, duplicate keys an error: for files whose format this gateway defines. */
export function parseStrictYaml(text: string): unknown {
  return yamlLib().parse(text);
}
