import { ErrorCode, GatewayError } from '../../../../shared/errors.js';
import type { ReadRules } from './rules.js';

// read_file's answers to a region read again and again (Hermes read_file_tool and
// `_dedup_stub_or_block`): the "unchanged" stub, the warning, BLOCKED.

/** Hermes `_READ_DEDUP_STATUS_MESSAGE` (tools/file_tools.py in 0.19, tools/file_tools_write_guards.py later). */
export const READ_DEDUP_STATUS_MESSAGE = 'File unchanged since last read. The content from the earlier read_file result in this conversation is still current — refer to that instead of re-reading.';

/** Hermes read_file_tool's `_warning` on the 3rd identical read in a row. */
export function repeatWarning(count: number): string {
  return (
    `You have read this exact file region ${count} times consecutively. ` +
    'The content has not changed since your last read. Use the information you already have. ' +
    'If you are stuck in a loop, stop reading and proceed with writing or responding.'
  );
}

/** Hermes' BLOCKED fields: the path as given, how many reads, and (after 0.19) the guardrail marker. */
function blockedDetails(input: string, times: number, rules: ReadRules): Record<string, unknown> {
  return { path: input, already_read: times, ...(rules.blockedMarker ? { guardrail_refusal: true } : {}) };
}

/** Hermes read_file_tool's BLOCKED answer to the 4th identical read in a row (the read is not shown). */
export function readBlocked(input: string, count: number, rules: ReadRules): GatewayError {
  return new GatewayError(
    ErrorCode.FILE_READ_REPEATED,
    `BLOCKED: You have read this exact file region ${count} times in a row. The content has NOT changed. You already have this information. STOP re-reading and proceed with your task.`,
    blockedDetails(input, count, rules),
  );
}

/** Hermes `_dedup_stub_or_block`'s BLOCKED answer from the second stub of an unchanged region on. */
export function stubBlocked(input: string, times: number, rules: ReadRules): GatewayError {
  return new GatewayError(
    ErrorCode.FILE_READ_REPEATED,
    `BLOCKED: You have called read_file on this exact region ${times} times and the file has NOT changed. STOP calling read_file for this path — the content from your earlier read_file result in this conversation is still current. Proceed with your task using the information you already have.`,
    blockedDetails(input, times, rules),
  );
}
