import { coerceNumber } from '../../../core/hermes-args.js';

// The file tools' integer arguments (read_file's and search_files' pagination), repaired as Hermes
// does on top of its dispatch coercion (core/hermes-args.ts): the int() and clamps of their own
// pagination.
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
 * goes through step 1 (`coerceNumber` of core/hermes-args.ts, `_coerce_number(value, integer_only=True)`), which
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
