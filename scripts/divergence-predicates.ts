import { isDeepStrictEqual } from 'node:util';

// What an intended divergence says the gateway answers (tests/fidelity/divergences/README.md): per
// field, a predicate over the gateway's value and Hermes' value at that field. A differing field is
// intended only when the predicate of an entry covering it holds, so a divergence never accepts
// "whatever the gateway answered". This module reads predicates (refusing malformed or
// anything-goes ones), checks them, and words them for docs/differences-from-hermes.md.

/** A named check a surface's fidelity test provides, for answers a fixed predicate cannot state. */
export interface CheckContext {
  caseId: string;
  via: string;
  /** The concrete dotted path the predicate is checked at. */
  field: string;
  /** The gateway's and Hermes' values there (undefined when missing). */
  gateway: unknown;
  hermes: unknown;
  /** The whole normalised answers. */
  gatewayAnswer: unknown;
  hermesAnswer: unknown;
}
export type Check = (c: CheckContext) => boolean;

export type Predicate =
  | 'absent'
  | { equals: unknown }
  | { 'one-of': unknown[] }
  | { pattern: string }
  | { 'hermes-plus': number }
  | { 'hermes-replaced': Array<[string, string]> }
  | { 'hermes-absent': Predicate }
  | { check: string }
  | { 'by-case': Record<string, Predicate> }
  | { any: Predicate[] }
  | { all: Predicate[] };

const KINDS = ['equals', 'one-of', 'pattern', 'hermes-plus', 'hermes-replaced', 'hermes-absent', 'check', 'by-case', 'any', 'all'] as const;
type Kind = (typeof KINDS)[number];

/** Fields too broad for a pattern: their value is stated (equals, by-case, hermes-replaced, a check). */
export const BROAD_FIELDS: readonly string[] = ['.', 'error', 'files', 'content', 'output', 'result', 'results', 'messages'];

function anchored(pattern: string): RegExp {
  return new RegExp(`^(?:${pattern})$`, 's');
}

/** Whether `pattern` accepts anything: it matches the empty string and an arbitrary one alike. */
function acceptsAnything(pattern: string): boolean {
  const re = anchored(pattern);
  return re.test('') && re.test('x\u0000 ¤ 42\nQ');
}

function kindOf(p: object): Kind {
  const keys = Object.keys(p);
  if (keys.length !== 1 || !(KINDS as readonly string[]).includes(keys[0]!)) throw new Error(`a predicate has one of the keys ${KINDS.join(', ')}, not ${JSON.stringify(keys)}`);
  return keys[0] as Kind;
}

/**
 * Refuses a predicate that is malformed or that pins nothing; `broad` when it stands for a broad
 * field (BROAD_FIELDS), where no pattern is taken. Returns the checks it names.
 */
export function validatePredicate(p: unknown, broad = false): string[] {
  if (p === 'absent') return [];
  if (typeof p !== 'object' || p === null || Array.isArray(p)) throw new Error(`a predicate is \`absent\` or a mapping, not ${JSON.stringify(p)}`);
  const kind = kindOf(p);
  const v = (p as Record<string, unknown>)[kind];
  switch (kind) {
    case 'equals':
      return [];
    case 'one-of':
      if (!Array.isArray(v) || v.length < 2) throw new Error('one-of takes a list of at least two values');
      return [];
    case 'pattern': {
      if (typeof v !== 'string') throw new Error('pattern takes a regular expression');
      anchored(v);
      if (acceptsAnything(v)) throw new Error(`the pattern ${JSON.stringify(v)} accepts any value`);
      if (broad) throw new Error(`a pattern (${JSON.stringify(v)}) does not pin a broad field: state its value (equals, by-case, hermes-replaced, a check)`);
      return [];
    }
    case 'hermes-plus':
      if (typeof v !== 'number' || v === 0) throw new Error('hermes-plus takes a non-zero number');
      return [];
    case 'hermes-replaced':
      if (!Array.isArray(v) || v.length === 0 || !v.every((r) => Array.isArray(r) && r.length === 2 && r.every((x) => typeof x === 'string'))) throw new Error('hermes-replaced takes a list of [regex, replacement] pairs');
      for (const [re] of v as Array<[string, string]>) new RegExp(re, 'g');
      return [];
    case 'hermes-absent':
      return validatePredicate(v, broad);
    case 'check':
      if (typeof v !== 'string' || v === '') throw new Error('check takes the name of a check its surface provides');
      return [v];
    case 'by-case':
      if (typeof v !== 'object' || v === null || Array.isArray(v) || Object.keys(v).length === 0) throw new Error('by-case takes a mapping of case id to predicate');
      return Object.values(v).flatMap((x) => validatePredicate(x, broad));
    case 'any':
    case 'all':
      if (!Array.isArray(v) || v.length < 2) throw new Error(`${kind} takes a list of at least two predicates`);
      return v.flatMap((x) => validatePredicate(x, broad));
  }
}

export interface PredicateContext extends CheckContext {
  checks: Readonly<Record<string, Check>>;
}

/** Whether the gateway's value satisfies `p` (see the README for each kind). */
export function holds(p: Predicate, c: PredicateContext): boolean {
  if (p === 'absent') return c.gateway === undefined;
  const kind = kindOf(p);
  const v = (p as Record<string, unknown>)[kind];
  switch (kind) {
    case 'equals':
      return isDeepStrictEqual(c.gateway, v);
    case 'one-of':
      return (v as unknown[]).some((x) => isDeepStrictEqual(c.gateway, x));
    case 'pattern':
      return typeof c.gateway === 'string' && anchored(v as string).test(c.gateway);
    case 'hermes-plus':
      return typeof c.gateway === 'number' && typeof c.hermes === 'number' && c.gateway === c.hermes + (v as number);
    case 'hermes-replaced':
      return typeof c.hermes === 'string' && c.gateway === (v as Array<[string, string]>).reduce((s, [re, to]) => s.replace(new RegExp(re, 'g'), to), c.hermes);
    case 'hermes-absent':
      return c.hermes === undefined && holds(v as Predicate, c);
    case 'check': {
      // A check its surface does not provide holds nowhere (and the surface reports it).
      const check = c.checks[v as string];
      return check !== undefined && check(c);
    }
    case 'by-case': {
      const forCase = (v as Record<string, Predicate>)[c.caseId];
      return forCase !== undefined && holds(forCase, c);
    }
    case 'any':
      return (v as Predicate[]).some((x) => holds(x, c));
    case 'all':
      return (v as Predicate[]).every((x) => holds(x, c));
  }
}

const show = (x: unknown): string => {
  const s = JSON.stringify(x) ?? 'undefined';
  return `\`${s.length > 120 ? `${s.slice(0, 117)}...` : s}\``;
};

/** The predicate in words, for the generated docs. */
export function describePredicate(p: Predicate): string {
  if (p === 'absent') return 'absent';
  const kind = kindOf(p);
  const v = (p as Record<string, unknown>)[kind];
  switch (kind) {
    case 'equals':
      return show(v);
    case 'one-of':
      return `one of ${(v as unknown[]).map(show).join(', ')}`;
    case 'pattern':
      return `matching ${show(v)}`;
    case 'hermes-plus':
      return `Hermes' value ${(v as number) > 0 ? 'plus' : 'minus'} ${Math.abs(v as number)}`;
    case 'hermes-replaced':
      return `Hermes' text with ${(v as Array<[string, string]>).map(([re, to]) => `${show(re)} replaced by ${show(to)}`).join(', then ')}`;
    case 'hermes-absent':
      return `${describePredicate(v as Predicate)} (Hermes has none)`;
    case 'check':
      return `as the \`${String(v)}\` check computes`;
    case 'by-case':
      return Object.entries(v as Record<string, Predicate>).map(([id, x]) => `${id}: ${describePredicate(x)}`).join('; ');
    case 'any':
      return (v as Predicate[]).map(describePredicate).join(', or ');
    case 'all':
      return (v as Predicate[]).map(describePredicate).join(', and ');
  }
}
