import { isJsonObject } from '../platform/json-object.js';

// Hermes' repair of a model's tool arguments, re-expressed in one place for every tool the gateway
// mirrors from Hermes (native and guarded families), so that a call Hermes answers is answered here
// too instead of costing the model a turn with INVALID_ARGUMENTS.
//
// Which tools get it (ToolDefinition.coerceArguments, built by hermesArgumentRepair or
// withHermesArgumentRepair where the tool is defined):
//  - Hermes' dispatch coercion (`coerceToolArgs`) on every tool whose name and schema are a Hermes
//    tool's: read_file and search_files (their integer repair, below), write_file, patch, terminal,
//    process_manage, execute_code, session_search, cronjob, delegate_task, skills_list, skill_view,
//    the browser_* tools, and the tools Hermes' own tool server serves (web_search, web_extract,
//    vision_analyze, ...: its tools/list schemas, read with the registry's types, registryTypesOf). The memory_* tools too: they
//    answer as Hermes' honcho_* tools, which Hermes' registry does not hold (its memory provider
//    serves them, and their handler reads numbers with int() and flags with bool()), so the gateway
//    applies the same dispatch rules to their schema, as it does to every other tool a model knows
//    from Hermes.
//  - None on the gateway's own tools (tool_search/tool_call, session_*, job_*, graph, lsp_*, the
//    agent-task tools hermes_task/hermes_status/..., startup_*): their contracts are the gateway's,
//    no Hermes behaviour to follow, and a wrong type there stays INVALID_ARGUMENTS as documented.
// What Hermes itself refuses or cannot use (a type it leaves alone, an unknown property) is left as
// sent, so the schema answers it with its stable INVALID_ARGUMENTS.
//
// The file tools add the int() and clamps of their own pagination (tools/files/common/pagination.ts).

// --- One argument value ----------------------------------------------------------------------
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

// --- Hermes' dispatch coercion for every tool -------------------------------------------------
//
// model_tools.py `coerce_tool_args` (0.19; 0.22: tools/arg_coercion.py), property by property, with
// the value rules above.

/**
 * Hermes' dispatch coercion (`coerce_tool_args`, the value rules above) of `args` in place against the tool's
 * input schema (the gateway's copy of Hermes' schema); returns `args`.
 */
export function coerceToolArgs(args: Record<string, unknown>, inputSchema: JsonSchema): Record<string, unknown> {
  const properties = inputSchema.properties;
  if (!isJsonObject(properties)) return args;
  for (const [key, value] of Object.entries(args)) {
    const propSchema = properties[key];
    if (!isJsonObject(propSchema) || Object.keys(propSchema).length === 0) continue;
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
      if ((expected === 'array' && Array.isArray(value)) || (expected === 'object' && isJsonObject(value))) {
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
  const schema = withHandlerProperties(inputSchema);
  return (args) => {
    const coerced = coerceToolArgs(args, schema);
    return then ? then(coerced) : coerced;
  };
}

/**
 * `inputSchema` with each property that only a `patternProperties` entry `^name$` declares lifted
 * into `properties`: a property Hermes no longer advertises but its handler still reads (write_file's
 * cross_profile after 0.19, which the handler reads with bool()). Hermes' dispatch cannot coerce
 * what its schema does not list, and its handler's bool() takes any non-empty string as true; the
 * gateway reads "true"/"false" as booleans instead (the same answer for "true"; for "false" the
 * guard the model asked to keep stays on) and refuses any other string.
 */
function withHandlerProperties(inputSchema: JsonSchema): JsonSchema {
  const patterns = inputSchema.patternProperties;
  if (!isJsonObject(patterns)) return inputSchema;
  const lifted: Record<string, unknown> = {};
  for (const [pattern, schema] of Object.entries(patterns)) {
    const name = /^\^([A-Za-z0-9_]+)\$$/.exec(pattern)?.[1];
    if (name !== undefined) lifted[name] = schema;
  }
  if (Object.keys(lifted).length === 0) return inputSchema;
  return { ...inputSchema, properties: { ...lifted, ...(isJsonObject(inputSchema.properties) ? inputSchema.properties : {}) } };
}

/** `tool` with Hermes' argument repair (hermesArgumentRepair against its own inputSchema) added. */
export function withHermesArgumentRepair<T extends { inputSchema: JsonSchema; coerceArguments?: (args: Record<string, unknown>) => Record<string, unknown> }>(tool: T): T {
  const own = tool.coerceArguments;
  return { ...tool, coerceArguments: hermesArgumentRepair(tool.inputSchema, own) };
}

/**
 * `inputSchema` as Hermes' dispatch sees the tool: each property its MCP tool server lists as
 * `anyOf: [{type: T}, {type: 'null'}]` (how FastMCP writes a Python `T | None` parameter) read as
 * `type: T`, the type Hermes' registry schema gives it and its dispatch coerces against (so
 * `"null"` stays a string there, and the schema refuses it, as the tool server's own validation does). Hermes' tool server hands a call to that dispatch (model_tools.py `handle_function_call`),
 * so `limit: "5"` for web_search is 5 there; without this view the FastMCP union has no `type` and
 * the gateway would refuse a call Hermes answers.
 */
export function registryTypesOf(inputSchema: JsonSchema): JsonSchema {
  const properties = inputSchema.properties;
  if (!isJsonObject(properties)) return inputSchema;
  const out: Record<string, unknown> = {};
  for (const [key, prop] of Object.entries(properties)) {
    out[key] = prop;
    if (!isJsonObject(prop) || prop.type !== undefined || !Array.isArray(prop.anyOf)) continue;
    const branches = prop.anyOf.filter(isJsonObject);
    const typed = branches.filter((b) => b.type !== 'null');
    if (branches.length !== prop.anyOf.length || typed.length !== 1 || typeof typed[0]!.type !== 'string') continue;
    const { anyOf: _union, ...rest } = prop;
    out[key] = { ...rest, ...typed[0] };
  }
  return { ...inputSchema, properties: out };
}
