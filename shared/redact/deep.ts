// redactDeep(): shared/redact.ts applied to every string of a structure.

import { JSON_FIELD_NAME_RE, maskJsonFieldValue } from './fields.js';
import { FILE_READ_MASKER, OUTPUT_MASKER } from './mask.js';
import { redact, runsAssignmentPasses, type RedactOptions } from './pipeline.js';

/**
 * Deep copy of `value` with every string redacted. Arrays and plain objects are rebuilt (keys are
 * kept verbatim, values redacted); anything else (Date, Map, Buffer, class instances, functions) is
 * passed through by reference. Cycles are preserved rather than followed forever.
 *
 * A string held under one of the JSON field names (`apiKey`, `password`, `token`, …) also gets the
 * JSON-field rule (pass 3) wherever the assignment passes run, so redacting a structure never leaks more than
 * redacting its JSON text would: `{password: "hunter2"}` has no secret shape in the string alone.
 */
export function redactDeep<T>(value: T, options: RedactOptions = {}): T {
  return deepCopy(value, options, new Map(), undefined) as T;
}

function isPlainObject(value: unknown): value is Record<PropertyKey, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function deepCopy(value: unknown, options: RedactOptions, seen: Map<object, unknown>, key: string | undefined): unknown {
  if (typeof value === 'string') {
    let out = redact(value, options);
    if (key !== undefined && runsAssignmentPasses(options) && JSON_FIELD_NAME_RE.test(key)) {
      out = maskJsonFieldValue(out, options.fileRead === true ? FILE_READ_MASKER : OUTPUT_MASKER);
    }
    return out;
  }
  if (Array.isArray(value)) {
    const known = seen.get(value);
    if (known !== undefined) return known;
    const out: unknown[] = new Array<unknown>(value.length);
    seen.set(value, out);
    for (let i = 0; i < value.length; i++) {
      if (i in value) out[i] = deepCopy(value[i], options, seen, undefined);
    }
    return out;
  }
  if (isPlainObject(value)) {
    const known = seen.get(value);
    if (known !== undefined) return known;
    const out = Object.create(Object.getPrototypeOf(value) as object | null) as Record<PropertyKey, unknown>;
    seen.set(value, out);
    // Object.keys lists exactly the own enumerable string keys; symbols are never JSON, and the
    // results of tools are JSON, so plain assignment is enough for every key but `__proto__`.
    for (const k of Object.keys(value)) {
      const copied = deepCopy(value[k], options, seen, k);
      if (k === '__proto__') {
        // defineProperty, not assignment: an own `__proto__` key (JSON.parse makes those) must
        // stay data, not rewrite the copy's prototype.
        Object.defineProperty(out, k, { value: copied, enumerable: true, writable: true, configurable: true });
      } else out[k] = copied;
    }
    return out;
  }
  return value;
}
