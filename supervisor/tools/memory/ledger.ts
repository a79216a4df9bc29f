// Memory mutations in flight, and how the ones that outlived their answer ended.
//
// A mutation whose tool call answered `unknown` (timed out while running, or its request ended
// without Honcho's confirmation: a 5xx, a dropped connection, the worker ceiling) may or may not
// have been applied. The gateway never sends it again and records it here:
//   - running: listed as unresolved until its worker ends; an identical mutation is refused meanwhile;
//   - ended unconfirmed: still unresolved (with the error) and still refused as a duplicate for
//     `holdMs` (memoryWorkerMaxSeconds), so a client's blind retry is not a replay; after that it
//     moves to the late outcomes as `unknown`, where `memory_conclude list` keeps showing it.
// A mutation that ends with a definite answer leaves the ledger (into the late outcomes if its call
// had already answered unknown).

interface PendingMutation {
  key: string;
  operation: 'create' | 'delete';
  kind?: string;
  /** sha256 of the stored conclusion (create), never the content itself. */
  content_sha256?: string;
  /** The conclusion id (delete). */
  id?: string;
  started_at: string;
  /** True once its tool call answered `unknown` (or will: its request ended unconfirmed). */
  unknown: boolean;
  /** Set when the request ended without a confirmation: when, and why (redacted). */
  ended_at?: string;
  error?: string;
  /** Until when (epoch ms) an identical mutation is still refused after the request ended. */
  hold_until?: number;
}

interface UnresolvedMutation {
  operation: 'create' | 'delete';
  kind?: string;
  content_sha256?: string;
  id?: string;
  started_at: string;
  /** `running`: the request is still in flight; `ended`: it ended without Honcho's confirmation. */
  request: 'running' | 'ended';
  ended_at?: string;
  error?: string;
  /** Until when an identical mutation is refused (ended requests only). */
  duplicate_guard_until?: string;
}

interface LateOutcome {
  operation: 'create' | 'delete';
  kind?: string;
  content_sha256?: string;
  /** The created or deleted conclusion's id, when Honcho gave one. */
  id?: string;
  /** `unknown`: the request ended unconfirmed; only a readback (list) can tell whether it applied. */
  outcome: 'applied' | 'failed' | 'unknown';
  error?: string;
  started_at: string;
  settled_at: string;
}

const LATE_OUTCOMES_KEPT = 20;

export class MutationLedger {
  private readonly pending = new Map<string, PendingMutation>();
  private readonly lateOutcomes: LateOutcome[] = [];

  constructor(private readonly now: () => number = Date.now) {}

  has(key: string): boolean {
    return this.get(key) !== undefined;
  }

  get(key: string): PendingMutation | undefined {
    this.expire();
    return this.pending.get(key);
  }

  begin(entry: Omit<PendingMutation, 'started_at' | 'unknown' | 'ended_at' | 'error' | 'hold_until'>): PendingMutation {
    const m: PendingMutation = { ...entry, started_at: new Date(this.now()).toISOString(), unknown: false };
    this.pending.set(m.key, m);
    return m;
  }

  markUnknown(key: string): void {
    const m = this.pending.get(key);
    if (m) m.unknown = true;
  }

  /**
   * The request was sent and ended without Honcho's confirmation: the outcome is unknown. The entry
   * stays unresolved and keeps refusing an identical mutation for `holdMs`. Returns the entry when
   * its call had already answered `unknown` (a late end worth logging).
   */
  endUnconfirmed(key: string, error: string, holdMs: number): PendingMutation | undefined {
    const m = this.pending.get(key);
    if (!m || m.ended_at !== undefined) return undefined;
    const wasUnknown = m.unknown;
    const at = this.now();
    m.unknown = true;
    m.ended_at = new Date(at).toISOString();
    m.error = error;
    m.hold_until = at + holdMs;
    return wasUnknown ? m : undefined;
  }

  /** The worker ended with a definite answer. Returns the late outcome it recorded, if its call had answered `unknown`. */
  settle(key: string, result: { outcome: 'applied' | 'failed'; id?: string; error?: string }): LateOutcome | undefined {
    const m = this.pending.get(key);
    if (!m || m.ended_at !== undefined) return undefined;
    this.pending.delete(key);
    if (!m.unknown) return undefined;
    return this.record(m, result.outcome, result.id, result.error, new Date(this.now()).toISOString());
  }

  /** Mutations whose call answered `unknown` and that are not settled (running, or ended within their hold). */
  unresolved(): UnresolvedMutation[] {
    this.expire();
    return [...this.pending.values()]
      .filter((m) => m.unknown)
      .map((m) => ({
        operation: m.operation,
        ...(m.kind ? { kind: m.kind } : {}),
        ...(m.content_sha256 ? { content_sha256: m.content_sha256 } : {}),
        ...(m.id ? { id: m.id } : {}),
        started_at: m.started_at,
        request: m.ended_at === undefined ? ('running' as const) : ('ended' as const),
        ...(m.ended_at ? { ended_at: m.ended_at } : {}),
        ...(m.error ? { error: m.error } : {}),
        ...(m.hold_until !== undefined ? { duplicate_guard_until: new Date(m.hold_until).toISOString() } : {}),
      }));
  }

  get unresolvedCount(): number {
    this.expire();
    let n = 0;
    for (const m of this.pending.values()) if (m.unknown) n++;
    return n;
  }

  /** How the most recent unknown mutations ended, newest first. */
  late(): LateOutcome[] {
    this.expire();
    return [...this.lateOutcomes];
  }

  /** Ended-unconfirmed entries whose hold ran out move to the late outcomes as `unknown`. */
  private expire(): void {
    const now = this.now();
    for (const [key, m] of this.pending) {
      if (m.hold_until !== undefined && m.hold_until <= now) {
        this.pending.delete(key);
        this.record(m, 'unknown', undefined, m.error, m.ended_at!);
      }
    }
  }

  private record(m: PendingMutation, outcome: LateOutcome['outcome'], id: string | undefined, error: string | undefined, settledAt: string): LateOutcome {
    const late: LateOutcome = {
      operation: m.operation,
      ...(m.kind ? { kind: m.kind } : {}),
      ...(m.content_sha256 ? { content_sha256: m.content_sha256 } : {}),
      ...((id ?? m.id) ? { id: id ?? m.id } : {}),
      outcome,
      ...(error ? { error } : {}),
      started_at: m.started_at,
      settled_at: settledAt,
    };
    this.lateOutcomes.unshift(late);
    this.lateOutcomes.length = Math.min(this.lateOutcomes.length, LATE_OUTCOMES_KEPT);
    return late;
  }
}
