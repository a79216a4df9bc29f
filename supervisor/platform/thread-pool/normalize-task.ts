import { normalizeResult, type NormalizeOptions } from '../../core/result.js';
import type { ToolOutcome } from '../../core/tool-types.js';

// Runs in a piscina worker thread: redaction and truncation of a large result, off the event loop.
export default function normalizeTask(input: { outcome: ToolOutcome; options: NormalizeOptions }) {
  return normalizeResult(input.outcome, input.options);
}
