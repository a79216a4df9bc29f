import { defaultLimits } from '../limits.js';

// The one frame cap both ends of a worker channel enforce, derived from the workerTransportMaxBytes
// limit. The largest frame is a command's result: up to workerTransportMaxBytes of output text,
// which JSON encoding can grow several times over (quotes and backslashes doubled, control bytes
// as \u00XX) before the frame's other fields. Anything over the cap is a protocol violation on the
// reading side and refused by the writing side, so both must use the same number: the supervisor
// computes it from its configuration and hands it to every worker it spawns (FRAME_CAP_VAR).

/** Frame bytes allowed per byte of workerTransportMaxBytes. */
const FRAME_BYTES_PER_TRANSPORT_BYTE = 4;

export function maxFrameBytes(workerTransportMaxBytes: number): number {
  return workerTransportMaxBytes * FRAME_BYTES_PER_TRANSPORT_BYTE;
}

/** The cap under the default limits (a channel nobody configured). */
export function defaultMaxFrameBytes(): number {
  return maxFrameBytes(defaultLimits().workerTransportMaxBytes);
}

/** The environment variable carrying the supervisor's cap to a worker. */
export const FRAME_CAP_VAR = 'HERMES_MCP_MAX_FRAME_BYTES';

/**
 * A worker's cap: the one its supervisor handed it, else the default. The variable is removed from
 * `env` on the way: it is the channel's business, not that of the commands the worker runs.
 */
export function takeFrameCap(env: NodeJS.ProcessEnv): number {
  const value = Number(env[FRAME_CAP_VAR]);
  delete env[FRAME_CAP_VAR];
  return Number.isSafeInteger(value) && value > 0 ? value : defaultMaxFrameBytes();
}
