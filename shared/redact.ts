// The gateway's one secret-redaction module. Every tool result, log line and memory write passes
// through here, so the rules live in exactly one place.
//
// Port of the passes of Hermes Agent's `agent/redact.py`, applied in the same order. Differences
// from Hermes are marked "Gateway:" where they occur; the largest is pass 1, whose table of
// credential formats (redact/formats.ts) extends Hermes' key prefixes to the providers the common
// secret scanners know.
//
// Performance contract: this runs on every tool result (up to 65,536 chars), so
//   - every regex is compiled once, at module load;
//   - every pass sits behind a cheap substring gate that its regex needs in order to match, so a
//     gate can skip work but never hide a secret, and text without the trigger characters of a
//     pass (`=`, `:`, `://`, `eyJ`, a key prefix…) pays one `includes` for it;
//   - every regex is linear: no nested or adjacent unbounded quantifiers over overlapping classes.
//     Where a pattern would otherwise retry a greedy run from every byte of a long identifier, a
//     lookbehind anchors the attempt to the start of the run, and "does this name hold a secret
//     keyword?" is decided in code on the captured name instead of inside the regex (the
//     `[A-Z_]*KEYWORD[A-Z_]*` shape is quadratic on long identifiers).
//
// Users run Hermes 0.19 through the newest release, and the versions mask differently (newer Hermes
// knows more key formats and name shapes, 0.19 masks more values of weakly named keys). Redaction
// hides what ANY supported version hides, in every mode: the passes are the union of both versions'
// passes, a value is masked when either version's policy masks it, and where the versions mask the
// same text differently the form that shows less wins (`docker run -e API_TOKEN=***`, not a
// head/tail). It does not follow the Hermes version the gateway fronts: a safety rule has no
// version to follow.
//
// The passes live under shared/redact/: mask.ts (masking primitives), formats.ts and prefixes.ts
// (pass 1: the format table and its compiled regex, keys split by control characters, Zhipu keys),
// value-policy.ts (the value policies of passes 2-4), assignments.ts (pass 2), fields.ts (passes 3-4,
// Python reprs), patterns.ts (passes 5-13),
// pipeline.ts (redact() and the pass order), deep.ts (redactDeep) and commands.ts (which mode a
// command's output gets). This module is the public surface.

export { commandReadsSecretFile, isEnvDumpCommand, redactCommandOutput, redactsWholeOutput, type CommandPlace } from './redact/commands.js';
export { redactDeep } from './redact/deep.js';
export { maskToken } from './redact/mask.js';
export { redact, type RedactOptions } from './redact/pipeline.js';
