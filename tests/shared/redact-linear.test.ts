import { test } from 'node:test';
import assert from 'node:assert/strict';
import { redact } from '../../shared/redact.js';
import { SECRET_FORMATS } from '../../shared/redact/formats.js';

// The format table must stay linear-time: redaction runs on every tool result, log line and job
// output. Two checks: the patterns' structure (no nested quantifiers, bounded quantifiers in the
// gateway's own entries), and 50k-character adversarial runs of near-matching characters for
// every format, whose cost must grow linearly with their length.

/** The pattern with character classes and escapes collapsed to one atom each, so `+` in `[+/]` is not a quantifier. */
function skeleton(pattern: string): string {
  return pattern.replace(/\[(?:\\.|[^\]\\])*\]/g, 'C').replace(/\\./g, 'E');
}

test('format patterns have no capture groups, no nested quantifiers, and gateway entries only bounded quantifiers', () => {
  for (const f of SECRET_FORMATS) {
    const parts = f.mask === 'value' ? [f.lead, f.pattern] : [f.pattern];
    for (const part of parts) {
      const s = skeleton(part);
      assert.doesNotMatch(s, /\((?!\?)/, `${f.id}: plain capture group in ${part}`);
      // An unbounded quantifier on a group is allowed only over a group without one inside (newer
      // Hermes' dotted `sk-` body: one character, an optional dot before it), as Hermes' own
      // structural gate has it; `(a+)+` is the catastrophic shape.
      for (const m of s.matchAll(/\(\?:([^()]*)\)(?:[*+]|\{\d+,\})/g)) {
        assert.doesNotMatch(m[1]!, /[*+]|\{\d+,\}/, `${f.id}: nested unbounded quantifiers in ${part}`);
      }
      assert.doesNotMatch(s, /\)\)(?:[*+]|\{\d+,\})/, `${f.id}: unbounded quantifier on nested groups in ${part}`);
      if (f.origin === 'gateway') assert.doesNotMatch(s, /[*+]|\{\d+,\}/, `${f.id}: unbounded quantifier in ${part}`);
    }
  }
});

/** `fragment` repeated to exactly `n` characters. */
function fill(fragment: string, n: number): string {
  return fragment.repeat(Math.ceil(n / fragment.length)).slice(0, n);
}

/** Near-matching inputs of `n` characters for every format, plus the structural passes. */
function adversarialInputs(n: number): string[] {
  const inputs: string[] = [];
  for (const f of SECRET_FORMATS) {
    const lead = f.literal;
    inputs.push(fill(lead, n)); // the literal over and over
    inputs.push(lead + fill('aB3', n - lead.length)); // one run far longer than any format allows
    inputs.push(fill(`${lead}${'x'.repeat(40)}-`, n)); // token-like runs glued together
  }
  for (const fragment of ['0123456789abcdef', 'A', '7Q~', '-us1', 'NRAL', 'https://u:', 'a://', 'x:y', '-----BEGIN PGP PRIVATE KEY BLOCK-----\n',
    // Assignment and header values: chains of non-secret assignments, quotes inside values.
    'A=', 'a.b=', "TOKEN='", "x-api-key: a')"]) {
    inputs.push(fill(fragment, n));
  }
  return inputs;
}

/** CPU time (user + system, ms) redacting every input: unlike wall time, other processes on the machine do not add to it. */
function timeAll(inputs: string[]): number {
  const t0 = process.cpuUsage();
  for (const text of inputs) redact(text);
  const { user, system } = process.cpuUsage(t0);
  return (user + system) / 1000;
}

test('50k-character adversarial inputs cost linear time (4x the input, well under 16x the time)', () => {
  const small = adversarialInputs(12_500);
  const large = adversarialInputs(50_000);
  timeAll(small); // warm up the regex compiler
  // The best of three runs each: the CPU time of this process, which a loaded machine changes far
  // less than wall time, and the least of three, so a slow run (caches, a GC) does not decide.
  const best = (inputs: string[]): number => Math.min(timeAll(inputs), timeAll(inputs), timeAll(inputs));
  const tSmall = best(small);
  const tLarge = best(large);
  // Linear work scales by 4; anything quadratic scales by 16 and more. Generous bounds both ways.
  assert.ok(tLarge / tSmall < 9, `12.5k: ${tSmall.toFixed(1)} ms, 50k: ${tLarge.toFixed(1)} ms`);
  assert.ok(tLarge < 20_000, `50k inputs took ${tLarge.toFixed(0)} ms`);
});
