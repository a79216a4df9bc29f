import fc from 'fast-check';
import Ajv2020Module from 'ajv/dist/2020.js';

// Arguments for a tool, derived from the JSON Schema tool_describe serves for it. The mapper covers
// the subset the catalog uses (type and type lists, properties/required/additionalProperties, enum,
// const, string length and pattern, numeric bounds, array items and sizes, anyOf/oneOf/allOf, local
// $ref into $defs); anything else becomes an arbitrary JSON value, which is still a fair input.

export type Schema = Record<string, unknown>;
type Arb = fc.Arbitrary<unknown>;

const Ajv2020 = Ajv2020Module as unknown as typeof Ajv2020Module.default;
// The gateway's own validator settings (supervisor/core/catalog/catalog.ts): no coercion, no defaults.
const ajv = new Ajv2020({ allErrors: false, strict: false, coerceTypes: false, useDefaults: false, validateFormats: false });

/** Whether `value` satisfies `schema`, by the same rules the gateway applies. */
export function schemaValidator(schema: Schema): (value: unknown) => boolean {
  const check = ajv.compile(schema);
  return (value) => check(value) === true;
}

const MAX_DEPTH = 4;
const json = fc.jsonValue({ maxDepth: 2 }) as Arb;

/** Values shaped like `schema` (usually valid; exact validity is never assumed by the callers). */
export function validish(schema: Schema, root: Schema = schema, depth = 0): Arb {
  if (depth > MAX_DEPTH) return json;
  const ref = schema.$ref;
  if (typeof ref === 'string') {
    const target = resolveRef(root, ref);
    return target ? validish(target, root, depth + 1) : json;
  }
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return fc.constantFrom(...(schema.enum as unknown[]));
  for (const key of ['anyOf', 'oneOf'] as const) {
    const options = schema[key];
    if (Array.isArray(options) && options.length > 0) return fc.oneof(...options.map((s) => validish({ ...(s as Schema) }, root, depth + 1)));
  }
  if (Array.isArray(schema.allOf) && schema.allOf.length > 0) return validish(mergeAll(schema.allOf as Schema[]), root, depth + 1);
  const type = schema.type;
  if (Array.isArray(type)) return fc.oneof(...type.map((t) => validish({ ...schema, type: t }, root, depth)));
  switch (type) {
    case 'string':
      return stringArb(schema);
    case 'integer':
      return fc.integer({ min: num(schema.minimum, -1e6), max: num(schema.maximum, 1e6) });
    case 'number':
      return fc.double({ min: num(schema.minimum, -1e6), max: num(schema.maximum, 1e6), noNaN: true, noDefaultInfinity: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const items = (schema.items as Schema | undefined) ?? {};
      const minLength = num(schema.minItems, 0);
      return fc.array(validish(items, root, depth + 1), { minLength, maxLength: Math.max(minLength, Math.min(num(schema.maxItems, 4), 4)) });
    }
    case 'object':
      return objectArb(schema, root, depth);
    default:
      return schema.properties ? objectArb(schema, root, depth) : json;
  }
}

function objectArb(schema: Schema, root: Schema, depth: number): Arb {
  const properties = (schema.properties as Record<string, Schema> | undefined) ?? {};
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const model: Record<string, Arb> = {};
  for (const [name, sub] of Object.entries(properties)) model[name] = validish(sub, root, depth + 1);
  return fc.record(model, { requiredKeys: Object.keys(model).filter((k) => required.has(k)) });
}

function stringArb(schema: Schema): Arb {
  const minLength = num(schema.minLength, 0);
  const maxLength = Math.max(minLength, Math.min(num(schema.maxLength, 64), 256));
  const base = fc.string({ minLength, maxLength, unit: 'grapheme' });
  if (typeof schema.pattern !== 'string') return base;
  let re: RegExp;
  try {
    re = new RegExp(schema.pattern, 'u');
  } catch {
    return base;
  }
  // fast-check builds matching strings for simple patterns (their length unchecked: filtering on
  // it can starve generation); when it cannot, any string is still a fair (likely refused) input.
  try {
    return fc.oneof(fc.stringMatching(re), base);
  } catch {
    return base;
  }
}

function num(v: unknown, fallback: number): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : fallback;
}

function resolveRef(root: Schema, ref: string): Schema | undefined {
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = root;
  for (const part of ref.slice(2).split('/')) node = (node as Record<string, unknown> | undefined)?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  return typeof node === 'object' && node !== null ? (node as Schema) : undefined;
}

function mergeAll(parts: Schema[]): Schema {
  return parts.reduce<Schema>((acc, p) => ({ ...acc, ...p, properties: { ...(acc.properties as object), ...(p.properties as object) } }), {});
}

/** A value of a JSON type other than the one(s) `schema` names. */
function wrongType(schema: Schema): Arb {
  const named = Array.isArray(schema.type) ? (schema.type as string[]) : typeof schema.type === 'string' ? [schema.type] : [];
  const all: Array<[string, Arb]> = [
    ['string', fc.string({ maxLength: 8 })],
    ['integer', fc.integer()],
    ['number', fc.double({ noNaN: true, noDefaultInfinity: true })],
    ['boolean', fc.boolean()],
    ['null', fc.constant(null)],
    ['array', fc.array(json, { maxLength: 3 })],
    ['object', fc.dictionary(fc.string({ maxLength: 6 }), json, { maxKeys: 3 })],
  ];
  const others = all.filter(([t]) => !named.includes(t) && !(t === 'integer' && named.includes('number')));
  return fc.oneof(...others.map(([, a]) => a));
}

/**
 * Arguments `schema` must refuse: a wrong root type, a missing required property, a wrong-typed or
 * out-of-range property, an unknown property, or random JSON — each filtered through the same
 * validator the gateway uses, so nothing valid (nothing that could run) ever gets through.
 */
export function invalidFor(schema: Schema): Arb {
  const isValid = schemaValidator(schema);
  const properties = Object.entries((schema.properties as Record<string, Schema> | undefined) ?? {});
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  const shaped = validish(schema).filter((v) => typeof v === 'object' && v !== null && !Array.isArray(v)) as fc.Arbitrary<Record<string, unknown>>;
  const mutations: Arb[] = [
    wrongType({ type: 'object' }),
    fc.dictionary(fc.string({ maxLength: 12 }), json, { maxKeys: 5 }),
    fc.jsonValue({ maxDepth: 3 }),
  ];
  if (required.length > 0) {
    mutations.push(fc.tuple(shaped, fc.constantFrom(...required)).map(([v, drop]) => {
      const copy = { ...v };
      delete copy[drop];
      return copy;
    }));
  }
  if (properties.length > 0) {
    const pick = fc.constantFrom(...properties);
    mutations.push(fc.tuple(shaped, pick).chain(([v, [name, sub]]) => wrongType(sub).map((bad) => ({ ...v, [name]: bad }))));
  }
  if (schema.additionalProperties === false) {
    const known = new Set(properties.map(([n]) => n));
    const unknown = fc.string({ minLength: 1, maxLength: 16 }).filter((k) => !known.has(k) && k !== '__proto__');
    mutations.push(fc.tuple(shaped, unknown, json).map(([v, k, x]) => ({ ...v, [k]: x })));
  }
  return fc.oneof(...mutations).filter((v) => !isValid(v));
}
