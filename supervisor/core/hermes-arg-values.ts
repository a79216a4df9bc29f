import { isJsonObject } from '../platform/json-object.js';

// Hermes' dispatch coercion of one argument value (hermes-args.ts applies it to every property).
//
// model_tools.py `coerce_tool_args` (0.19; 0.22: tools/arg_coercion.py, the same rules) runs on
// every call before the tool's function, guided by the tool's JSON Schema property by property:
//  - a string for an "integer"/"number" property becomes a number when Python's `float()` reads it
//    and it is finite (`_coerce_number`): integral values become integers ("3", "3.0", "1e2"); a
//    fraction stays a string for "integer" and becomes a float for "number";
//  - a string for a "boolean" property: "true"/"false", any case, surrounding spaces (`_coerce_boolean`);
//  - a string for an "array"/"object" property is parsed as JSON when it yields that kind (`_coerce_json`),
//    then JSON-encoded items/sub-fields are parsed where the schema expects containers
//    (`_normalize_json_strings_for_schema`);
//  - a bare non-list value for an "array" property is wrapped in a one-element list;
//  - "null" (any case) becomes null where the property's schema allows null;
//  - a union `type: [..]` tries each type in order.
// Everything else is left as sent (the schema then refuses what Hermes' own function could not use).
// 0.22 also maps renamed keys back (tools/schema_sanitizer.py `unrename_tool_args`) and resolves
// local `$ref`s: the gateway's schemas have neither, so those steps change nothing here.

export type JsonSchema = Readonly<Record<string, unknown>>;

/** Python `float(s)` of a string, decimal forms only (inf/nan are kept as strings by Hermes). */
const PY_FLOAT_STRING = /^\s*[+-]?(?:\d+(?:_\d+)*(?:\.(?:\d+(?:_\d+)*)?)?|\.\d+(?:_\d+)*)(?:[eE][+-]?\d+(?:_\d+)*)?\s*$/;

/** `_coerce_number`: the number Hermes makes of a string, or the string itself. */
export function coerceNumber(value: string, integerOnly: boolean): unknown {
  if (!PY_FLOAT_STRING.test(value)) return value;
  const f = Number(value.trim().replaceAll('_', ''));
  if (!Number.isFinite(f)) return value;
  if (Number.isInteger(f)) return f || 0;
  return integerOnly ? value : f;
}

/** `_coerce_boolean`. */
function coerceBoolean(value: string): unknown {
  const low = value.trim().toLowerCase();
  if (low === 'true') return true;
  if (low === 'false') return false;
  return value;
}

/** `_coerce_json`: the parsed array/object, or the string itself. */
function coerceJson(value: string, kind: 'array' | 'object'): unknown {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return value;
  }
  return (kind === 'array' ? Array.isArray(parsed) : isJsonObject(parsed)) ? parsed : value;
}

/** `_schema_allows_null`. */
export function schemaAllowsNull(schema: JsonSchema | undefined): boolean {
  if (schema === undefined) return false;
  const t = schema.type;
  if (t === 'null' || (Array.isArray(t) && t.includes('null')) || schema.nullable === true) return true;
  for (const key of ['anyOf', 'oneOf']) {
    const variants = schema[key];
    if (Array.isArray(variants) && variants.some((v) => isJsonObject(v) && v.type === 'null')) return true;
  }
  return false;
}

/** `_coerce_value`: a string made into the expected type, or the string itself (same identity). */
export function coerceValue(value: string, expected: unknown, schema: JsonSchema | undefined): unknown {
  if (schemaAllowsNull(schema) && value.trim().toLowerCase() === 'null') return null;
  if (Array.isArray(expected)) {
    for (const t of expected) {
      const result = coerceValue(value, t, schema);
      if (result !== value) return result;
    }
    return value;
  }
  if (expected === 'integer' || expected === 'number') return coerceNumber(value, expected === 'integer');
  if (expected === 'boolean') return coerceBoolean(value);
  if (expected === 'array' || expected === 'object') return coerceJson(value, expected);
  if (expected === 'null' && value.trim().toLowerCase() === 'null') return null;
  return value;
}

/** `_schema_accepts_kind`. */
function schemaAcceptsKind(schema: unknown, kind: 'array' | 'object'): boolean {
  if (!isJsonObject(schema)) return false;
  const t = schema.type;
  if (t === kind || (Array.isArray(t) && t.includes(kind))) return true;
  return ['anyOf', 'oneOf', 'allOf'].some((key) => {
    const branches = schema[key];
    return Array.isArray(branches) && branches.some((b) => schemaAcceptsKind(b, kind));
  });
}

/** `_normalize_json_strings_for_schema`: JSON-encoded containers inside containers, schema-guided. */
export function normalizeJsonStrings(value: unknown, schema: unknown): unknown {
  if (!isJsonObject(schema)) return value;
  let v = value;
  if (typeof v === 'string') {
    const trimmed = v.trim();
    const expectsArray = schemaAcceptsKind(schema, 'array');
    const expectsObject = schemaAcceptsKind(schema, 'object');
    if (!((expectsArray && trimmed.startsWith('[')) || (expectsObject && trimmed.startsWith('{')))) return value;
    let parsed: unknown;
    try {
      parsed = JSON.parse(trimmed);
    } catch {
      return value;
    }
    if (Array.isArray(parsed) && expectsArray) v = parsed;
    else if (isJsonObject(parsed) && expectsObject) v = parsed;
    else return value;
  }
  if (Array.isArray(v)) {
    const items = schema.items;
    if (!isJsonObject(items)) return v;
    let changed = false;
    const out = v.map((item: unknown) => {
      const next = normalizeJsonStrings(item, items);
      changed ||= next !== item;
      return next;
    });
    return changed ? out : v;
  }
  if (isJsonObject(v)) {
    const props = schema.properties;
    if (!isJsonObject(props)) return v;
    let changed = false;
    const out: Record<string, unknown> = { ...v };
    for (const [k, propSchema] of Object.entries(props)) {
      if (!Object.hasOwn(v, k) || !isJsonObject(propSchema)) continue;
      const next = normalizeJsonStrings(v[k], propSchema);
      if (next !== v[k]) {
        out[k] = next;
        changed = true;
      }
    }
    return changed ? out : v;
  }
  return v;
}
