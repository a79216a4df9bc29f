import { createRequire } from 'node:module';

// The one place the gateway loads `yaml`. On first use (its CommonJS build, so callers stay
// synchronous): an idle gateway without a Hermes config.yaml, skills or a bridge registry never
// needs it, and every module loaded at startup counts against the idle-RSS budget (~9 MB here).
let yamlModule: typeof import('yaml') | undefined;
const yamlLib = (): typeof import('yaml') => (yamlModule ??= createRequire(import.meta.url)('yaml') as typeof import('yaml'));

type Tag = import('yaml').ScalarTag | import('yaml').CollectionTag;

/**
 * PyYAML's implicit resolvers (yaml/resolver.py) where they are narrower than the YAML 1.1 schema
 * of the `yaml` package: `y`/`n` stay strings, a float needs a `.` (`1e3` is a string), a decimal
 * or sexagesimal int does not start with 0 (`09` and `00:30` are strings). What Hermes reads as a
 * string must reach the gateway as that string: `allow_private_urls: y` is no switch in Hermes.
 */
function pyYamlTag(tag: Tag): Tag {
  if (!('test' in tag) || !tag.test) return tag;
  const kind = `${tag.tag.replace('tag:yaml.org,2002:', '')}${tag.format ? `:${tag.format}` : ''}`;
  let test: RegExp | undefined;
  if (kind === 'bool') test = tag.identify?.(true) ? PYYAML.true : PYYAML.false;
  else if (kind === 'int') test = PYYAML.int;
  else if (kind === 'int:TIME') test = PYYAML.sexagesimalInt;
  else if (kind === 'float:EXP') test = PYYAML.exponentFloat;
  else if (kind === 'float' && tag.test.test('.5')) test = PYYAML.float;
  return test ? { ...tag, test } : tag;
}

const PYYAML_FLOAT = String.raw`(?:[-+]?[0-9][0-9_]*\.[0-9_]*|\.[0-9][0-9_]*)`;
const PYYAML = {
  true: /^(?:yes|Yes|YES|true|True|TRUE|on|On|ON)$/,
  false: /^(?:no|No|NO|false|False|FALSE|off|Off|OFF)$/,
  int: /^[-+]?(?:0|[1-9][0-9_]*)$/,
  sexagesimalInt: /^[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+$/,
  exponentFloat: new RegExp(`^${PYYAML_FLOAT}[eE][-+][0-9]+$`),
  float: new RegExp(`^${PYYAML_FLOAT}$`),
};

/** The `yaml` package's YAML 1.1 tags with PyYAML's resolvers, built once on first use. */
let pyYamlTags: Tag[] | undefined;

/**
 * A YAML document as Hermes reads it: PyYAML (`yaml.safe_load`) implements YAML 1.1 (`yes`/`no`
 * are booleans) and keeps the last of duplicate keys. Throws the first parse error.
 */
export function parsePyYaml(text: string): unknown {
  const doc = yamlLib().parseDocument(text, { version: '1.1', uniqueKeys: false, prettyErrors: false, customTags: (tags) => (pyYamlTags ??= (tags as Tag[]).map(pyYamlTag)) });
  if (doc.errors.length > 0) throw doc.errors[0];
  return doc.toJS({ maxAliasCount: 100 });
}

/**
 * The first syntax error in `text` read as a YAML stream (several documents allowed, repeated keys
 * and custom tags no error: those are content conventions), undefined when there is none.
 */
export function yamlSyntaxError(text: string): string | undefined {
  for (const doc of yamlLib().parseAllDocuments(text, { uniqueKeys: false })) {
    const first = doc.errors[0];
    if (first) return first.message;
  }
  return undefined;
}

/** A YAML 1.2 document, duplicate keys an error: for files whose format this gateway defines. */
export function parseStrictYaml(text: string): unknown {
  return yamlLib().parse(text);
}
