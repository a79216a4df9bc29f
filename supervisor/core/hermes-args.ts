import { isJsonObject } from '../platform/json-object.js';
import { coerceNumber, coerceValue, normalizeJsonStrings, schemaAllowsNull, type JsonSchema } from './hermes-arg-values.js';

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
 * goes through step 1 (`coerceNumber` of hermes-arg-values.ts, `_coerce_number(value, integer_only=True)`), which
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
// model_tools.py `coerce_tool_args` (0.19; 0.22: tools/arg_coercion.py), property by property, with
// the value rules of hermes-arg-values.ts.

/**
 * Hermes' dispatch coercion (`coerce_tool_args`, hermes-arg-values.ts) of `args` in place against the tool's
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
