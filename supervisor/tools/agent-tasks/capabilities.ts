import { createHash } from 'node:crypto';

// What an agent's Hermes API server says it can do, read from its own answer rather than guessed
// from a version: GET /v1/capabilities (authenticated; Hermes' api_server.py
// _handle_capabilities). Two features change what the agent-task tools do:
//   features.runs_idempotency {supported, durable, retention_seconds}: POST /v1/runs honours
//     Idempotency-Key (a repeat of the key with the same body replays the run, 202 + replayed; with
//     another body 409 idempotency_key_conflict). Hermes 0.19 and v0.20 do not advertise it (they
//     start a new run for every POST); upstream added it with PR #88408.
//   features.run_stop / endpoints.run_stop: POST /v1/runs/{id}/stop exists (0.19 already has it).
// A Hermes whose /v1/capabilities is missing (404) or unreadable is `absent`: nothing is relied on,
// and a stop is tried (its answer says whether it exists). Where Hermes offers no capability for a
// change (release.ts API_SERVER_CHANGES), the version its /health reports is followed.

export interface RunIdempotency {
  /** Whether Hermes keeps the keys across its own restarts (its SQLite store, not memory). */
  durable: boolean;
  /** How long Hermes remembers a key (24 h in its RunIdempotencyStore). */
  retentionSeconds: number;
}

export interface AgentCapabilities {
  source: 'capabilities' | 'absent';
  /**
   * The Hermes version this API server reports (GET /health `version`, unauthenticated), when it is
   * a usable one: what the gateway follows for this agent where no capability says (a remote or
   * profile agent may run another Hermes than the one the gateway fronts).
   */
  version?: string;
  /** Set when POST /v1/runs honours Idempotency-Key. */
  runIdempotency?: RunIdempotency;
  /** true: advertised; false: the capabilities were read and do not name it; undefined: not known (absent). */
  runStop?: boolean;
}

export const ABSENT: AgentCapabilities = Object.freeze({ source: 'absent' });

/** A /v1/capabilities body as the gateway uses it. */
export function parseCapabilities(body: unknown): AgentCapabilities {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return ABSENT;
  const { features, endpoints } = body as { features?: unknown; endpoints?: unknown };
  if (!features || typeof features !== 'object' || Array.isArray(features)) return ABSENT;
  const f = features as Record<string, unknown>;
  const idem = f.runs_idempotency as { supported?: unknown; durable?: unknown; retention_seconds?: unknown } | undefined;
  const runIdempotency =
    idem && typeof idem === 'object' && idem.supported === true
      ? { durable: idem.durable === true, retentionSeconds: typeof idem.retention_seconds === 'number' && idem.retention_seconds > 0 ? idem.retention_seconds : 0 }
      : undefined;
  const stopEndpoint = endpoints && typeof endpoints === 'object' ? (endpoints as Record<string, unknown>).run_stop : undefined;
  return { source: 'capabilities', ...(runIdempotency ? { runIdempotency } : {}), runStop: f.run_stop === true || (stopEndpoint !== undefined && stopEndpoint !== null) };
}

/** Names one (base URL, key) pair by the key's digest, never the key itself. */
export function agentIdentity(baseUrl: string, key: string): string {
  return `${baseUrl}\0${createHash('sha256').update(key).digest('hex')}`;
}

/**
 * The capabilities each (base URL, key) answered (agentIdentity), kept for `ttlSeconds` so a task
 * does not ask every time and a Hermes upgraded under the gateway is noticed within that time. A
 * /p/<profile> and its listener, or two keys, may answer apart, so each pair is its own entry.
 */
export class CapabilityCache {
  private readonly entries = new Map<string, { value: AgentCapabilities; expires: number }>();

  constructor(
    private readonly ttlSeconds: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** The cached answer for `identity`, else `read()`'s (kept only when it resolves). */
  async get(identity: string, read: () => Promise<AgentCapabilities>): Promise<AgentCapabilities> {
    const hit = this.entries.get(identity);
    if (hit && hit.expires > this.now()) return hit.value;
    const value = await read();
    this.entries.set(identity, { value, expires: this.now() + this.ttlSeconds * 1000 });
    return value;
  }

  /** Forgets what `identity` answered: its next use asks again. */
  forget(identity: string): void {
    this.entries.delete(identity);
  }
}
