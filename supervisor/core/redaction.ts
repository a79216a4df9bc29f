import { redact, redactDeep } from '../../shared/redact.js';

// The redaction a tool cannot leave to the pipeline's pass over its result (result.ts redactOutcome
// and normalizeResult), in the pipeline's default mode (`output`), for the two reasons that pass
// cannot cover:
//   - text the tool cuts before returning it (a preview, a message capped to fit the output budget):
//     a cut can split a secret so that the result pass no longer recognises what is left of it, and
//     the tool measures what it returns after redaction;
//   - text that leaves the gateway by another way than the tool's result (a readiness reason on
//     /readyz, the context a tool sends to another model).
// Everything else a handler returns as facts; the pipeline redacts it once, in the tool's declared
// mode (ToolDefinition.redaction). Redaction is idempotent, so the result pass over text redacted
// here changes nothing.

/** Text the tool will cut or measure (a message, a title, a preview's source), redacted first. */
export function redactBeforeCut(text: string): string {
  return redact(text);
}

/** A structure the tool will cut or measure as JSON (a message's tool calls), every string redacted first. */
export function redactStructureBeforeCut<T>(value: T): T {
  return redactDeep(value);
}

/**
 * A window cut out of `source` (a search snippet), redacted: the window may have lost the prefix the
 * redactor recognises a secret by, so any word of 6+ letters or digits that redacting the whole
 * source removed is masked in the window too.
 */
export function redactWindow(window: string, source: string | null): string {
  if (source !== null) {
    const redacted = redact(source);
    if (redacted !== source) {
      window = window.replace(/[\p{L}\p{N}]{6,}/gu, (run) => (source.includes(run) && !redacted.includes(run) ? '***' : run));
    }
  }
  return redact(window);
}

/** Text the tool sends out by another way than its result (a /readyz reason, another model's input), redacted. */
export function redactOutbound(text: string): string {
  return redact(text);
}
