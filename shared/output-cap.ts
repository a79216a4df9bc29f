// Output shaping shared by execute_code and terminal output, ported from Hermes Agent:
//
//   - stripAnsi: `tools/ansi_strip.py` `strip_ansi` (full ECMA-48: CSI, OSC, DCS/SOS/PM/APC, nF,
//     Fp/Fe/Fs, 8-bit C1), as a linear scanner with the regex's exact semantics;
//   - capHeadTail: the 40% head / 60% tail string cap of terminal output (`_truncate_output`,
//     `tool_output.max_bytes` = 50,000 chars) with Hermes' notice;
//   - BoundedCollector: the byte-stream side of execute_code stdout (`_drain_head_tail`): first 40%
//     of the bytes kept, last 60% kept in a rolling window, so memory stays bounded however much the
//     child prints.
//
// Hermes' terminal pipeline order (tools/terminal_tool.py) is truncate → ANSI strip → redact; callers compose
// capHeadTail → stripAnsi → shared/redact.ts themselves.

// The pieces live under shared/output-cap/: ansi.ts, head-tail.ts and collector.ts. This module is
// the public surface.

export { keepSgrOnly, stripAnsi } from './output-cap/ansi.js';
export {
  BoundedCollector,
  type BoundedCollectorOptions,
  type CollectedOutput,
  DEFAULT_TRANSPORT_CAP_BYTES,
} from './output-cap/collector.js';
export { capHeadTail, type HeadTailResult, type NoticeOptions, truncationNotice } from './output-cap/head-tail.js';
