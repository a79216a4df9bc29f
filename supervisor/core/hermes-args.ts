// Hermes' repair of a model's tool arguments, re-expressed in one place for every tool the gateway
// mirrors from Hermes (native and guarded families), so that a call Hermes answers is answered here
// too instead of costing the model a turn with INVALID_ARGUMENTS.
//
// `coerceToolArgs` (below) is Hermes' dispatch step for every tool; `coerceIntegerArgs` adds the
// int() and clamps of the file tools' own pagination. The integer repair of the file tools:
//
// A model's call reaches Hermes' tool in two steps, the same in 0.19 and 0.22:
//  1. model_tools.py `coerce_tool_args` (0.22: tools/arg_coercion.py): a string argument whose
//     schema type is "integer" becomes an integer when `float(value)` is finite and integral
//     (`_coerce_number(value, integer_only=True)`: "3", " 3 ", "3.0", "1e2"); anything else stays.
//  2. tools/file_operations.py `normalize_read_pagination` / `normalize_search_pagination`
//     (0.22: tools/file_operations_common.py) read each value with `_coerce_int`, Python's `int()`,
//     which truncates a number toward zero (2.7 is 2, -0.5 is 0), and clamp: read_file offset ≥ 1,
//     1 ≤ limit ≤ the line cap; search_files offset ≥ 0, limit ≥ 1. None (JSON null) is the default.
//
// What Hermes cannot read as a number (`"abc"`, `"2.5"`, `true`, `[]`, `{}`) it silently replaces
// by the default (and `true` by 1); the gateway leaves such a value alone, so the schema refuses it
// with INVALID_ARGUMENTS and the model learns its argument was not used (a divergence the fidelity
// suite lists). The published schema stays Hermes' own: integers, within its bounds.

/**
 * The integer Hermes makes of an integer argument (steps 1 and 2 above), or undefined when Hermes
 * would not read it as a number (then its default applies there; the gateway refuses). A string
 * goes through step 1 (`coerceNumber` below, `_coerce_number(value, integer_only=True)`), which
 * makes an integer of every string step 2's `int()` could read, and of integral float forms
 * ("3.0", "1e2", "1_0.0") besides; what step 1 leaves a string, `int()` refuses.
 */
export function hermesInteger(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? Math.trunc(value) || 0 : undefined;
  if (typeof value !== 'string') return undefined;
  const n = coerceNumber(value, true);
  return typeof n === 'number' ? n : undefined;
}

/** One integer argument: its clamp, as Hermes' normalize_*_pagination applies it. */
export interface IntegerArgRule {
  min?: number;
  max?: number;
  /**
   * Only step 1 applies (Hermes' function reads the value as given, without `int()`): a numeric
   * string becomes its integer, a number and null are left to the schema (search_files `context`).
   */
  stringsOnly?: boolean;
}

/**
 * Repairs `args` in place as Hermes does (see above) for the named integer arguments: null is
 * dropped (the default applies), a number or numeric string becomes the clamped integer, anything
 * else is left for the schema to refuse.
 */
export function coerceIntegerArgs(args: Record<string, unknown>, rules: Readonly<Record<string, IntegerArgRule>>): Record<string, unknown> {
  for (const [key, rule] of Object.entries(rules)) {
    if (!Object.hasOwn(args, key)) continue;
    const value = args[key];
    if (rule.stringsOnly === true) {
      const n = typeof value === 'string' ? hermesInteger(value) : undefined;
      if (n !== undefined) args[key] = n;
      continue;
    }
    if (value === null) {
      delete args[key];
      continue;
    }
    const n = hermesInteger(value);
    if (n === undefined) continue;
    args[key] = Math.min(rule.max ?? Number.POSITIVE_INFINITY, Math.max(rule.min ?? Number.NEGATIVE_INFINITY, n));
  }
  return args;
}

// --- Hermes' dispatch coercion for every tool -------------------------------------------------
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

type JsonSchema = Readonly<Record<string, unknown>>;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Python `float(s)` of a string, decimal forms only (inf/nan are kept as strings by Hermes). */
const PY_FLOAT_STRING = /^\s*[+-]?(?:\d+(?:_\d+)*(?:\.(?:\d+(?:_\d+)*)?)?|\.\d+(?:_\d+)*)(?:[eE][+-]?\d+(?:_\d+)*)?\s*$/;

/** `_coerce_number`: the number Hermes makes of a string, or the string itself. */
function coerceNumber(value: string, integerOnly: boolean): unknown {
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
  return (kind === 'array' ? Array.isArray(parsed) : isRecord(parsed)) ? parsed : value;
}

/** `_schema_allows_null`. */
function schemaAllowsNull(schema: JsonSchema | undefined): boolean {
  if (schema === undefined) return false;
  const t = schema.type;
  if (t === 'null' || (Array.isArray(t) && t.includes('null')) || schema.nullable === true) return true;
  for (const key of ['anyOf', 'oneOf']) {
    const variants = schema[key];
    if (Array.isArray(variants) && variants.some((v) => isRecord(v) && v.type === 'null')) return true;
  }
  return false;
}

/** `_coerce_value`: a string made into the expected type, or the string itself (same identity). */
function coerceValue(value: string, expected: unknown, schema: JsonSchema | undefined): unknown {
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
  if (!isRecord(schema)) return false;
  const t = schema.type;
  if (t === kind || (Array.isArray(t) && t.includes(kind))) return true;
  return ['anyOf', 'oneOf', 'allOf'].some((key) => {
    const branches = schema[key];
    return Array.isArray(branches) && branches.some((b) => schemaAcceptsKind(b, kind));
  });
}

/** `_normalize_json_strings_for_schema`: JSON-encoded containers inside containers, schema-guided. */
function normalizeJsonStrings(value: unknown, schema: unknown): unknown {
  if (!isRecord(schema)) return value;
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
    else if (isRecord(parsed) && expectsObject) v = parsed;
    else return value;
  }
  if (Array.isArray(v)) {
    const items = schema.items;
    if (!isRecord(items)) return v;
    let changed = false;
    const out = v.map((item: unknown) => {
      const next = normalizeJsonStrings(item, items);
      changed ||= next !== item;
      return next;
    });
    return changed ? out : v;
  }
  if (isRecord(v)) {
    const props = schema.properties;
    if (!isRecord(props)) return v;
    let changed = false;
    const out: Record<string, unknown> = { ...v };
    for (const [k, propSchema] of Object.entries(props)) {
      if (!Object.hasOwn(v, k) || !isRecord(propSchema)) continue;
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

/**
 * Hermes' dispatch coercion (`coerce_tool_args`, see above) of `args` in place against the tool's
 * input schema (the gateway's copy of Hermes' schema); returns `args`.
 */
export function coerceToolArgs(args: Record<string, unknown>, inputSchema: JsonSchema): Record<string, unknown> {
  const properties = inputSchema.properties;
  if (!isRecord(properties)) return args;
  for (const [key, value] of Object.entries(args)) {
    const propSchema = properties[key];
    if (!isRecord(propSchema) || Object.keys(propSchema).length === 0) continue;
    const expected = propSchema.type;
    if (expected === 'array' && value !== null && !Array.isArray(value)) {
      if (typeof value === 'string') {
        const coerced = coerceValue(value, expected, propSchema);
        if (coerced !== value) {
          args[key] = coerced;
          continue;
        }
      }
      args[key] = [value];
      continue;
    }
    if (typeof value !== 'string') {
      if ((expected === 'array' && Array.isArray(value)) || (expected === 'object' && isRecord(value))) {
        args[key] = normalizeJsonStrings(value, propSchema);
      }
      continue;
    }
    if (expected === undefined && !schemaAllowsNull(propSchema)) continue;
    const coerced = coerceValue(value, expected, propSchema);
    if (coerced !== value) {
      args[key] = typeof coerced === 'object' && coerced !== null ? normalizeJsonStrings(coerced, propSchema) : coerced;
    }
  }
  return args;
}

/**
 * The `coerceArguments` of a tool mirroring a Hermes tool: Hermes' dispatch coercion against the
 * tool's schema, then the tool function's own repair (`then`, e.g. coerceIntegerArgs' clamps).
 */
export function hermesArgumentRepair(
  inputSchema: JsonSchema,
  then?: (args: Record<string, unknown>) => Record<string, unknown>,
): (args: Record<string, unknown>) => Record<string, unknown> {
  return (args) => {
    const coerced = coerceToolArgs(args, inputSchema);
    return then ? then(coerced) : coerced;
  };
}

/** `tool` with Hermes' argument repair (hermesArgumentRepair against its own inputSchema) added. */
export function withHermesArgumentRepair<T extends { inputSchema: JsonSchema; coerceArguments?: (args: Record<string, unknown>) => Record<string, unknown> }>(tool: T): T {
  const own = tool.coerceArguments;
  return { ...tool, coerceArguments: hermesArgumentRepair(tool.inputSchema, own) };
}
