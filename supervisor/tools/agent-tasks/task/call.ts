import type { ResolvedAgent, BridgeService } from '../service.js';
import type { TaskArgs } from './prompt.js';

/** One hermes_task call once its agent, id, sessions and prompt are settled, as sync and async runs take it. */
export interface TaskCall {
  service: BridgeService;
  resolved: ResolvedAgent;
  args: TaskArgs;
  id: string;
  /** The bridge session (sessionIdFor). */
  sessionId: string;
  /** The Hermes session that bridge session continues now (itself until Hermes first rotates it). */
  hermesSession: string;
  contract: string | undefined;
  text: string;
  dir: string;
  /** The result's details so far; the run adds to them. */
  details: Record<string, unknown>;
  signal: AbortSignal;
}
