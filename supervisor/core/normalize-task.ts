import { normalizeResult, type NormalizeOptions } from './result.js';
import type { ToolOutcome } from './tool-types.js';

// Runs in a piscina worker thread: redaction and truncation of a large result, off the event loop.
export default function normalizeTask(input: { outcome: ToolOutcome; options: NormalizeOptions }) {
  return normalizeResult(input.outcome, input.options);
}
