import type { CallContext, ToolSource } from './tool-types.js';
import type { ReadinessComponent } from '../platform/health/readiness.js';
import type { ReleaseHook } from './owners/owners.js';

// Every upstream or subsystem (native execution, jobs, Hermes tool server, Honcho, Camofox, graph,
// language servers, Hermes files) plugs into the gateway through this one interface: tools into the
// frozen catalog, probes into /readyz, owner release hooks, liveness facts into /healthz.

export interface Adapter {
  name: string;
  source?: ToolSource;
  readiness?: ReadinessComponent[];
  /** Called when an owner ends (session_close, expiry, legacy session gone), after its work settles. */
  releaseHook?: ReleaseHook;
  /**
   * Told of every call of a catalogued tool (a nested one too) just before its handler runs, with
   * the call's context: what an adapter keeps per owner about the owner's last calls (the file
   * tools' repeated-read counters). Must not throw or block.
   */
  callHook?: CallHook;
  /** Cheap, provider-free facts for /healthz. */
  health?: () => Record<string, unknown>;
  /** Facts /readyz reports beside (not inside) control-plane readiness, e.g. `job_admission`. */
  readyFacts?: () => Record<string, unknown>;
  close?: () => Promise<void>;
}

/** Adapter.callHook: a catalogued tool named `tool` is about to run for `ctx.owner`. */
export type CallHook = (tool: string, ctx: CallContext) => void;
