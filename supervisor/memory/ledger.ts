// Memory mutations in flight, and how the ones that outlived their answer ended.
//
// A mutation whose tool call timed out is `unknown`: the request may still be running, and an early
// readback that finds nothing proves nothing. The gateway never sends it again, refuses an identical
// mutation while the first is unresolved (a client retry would be a replay), and keeps how it finally
// ended so a later `memory_conclude list` can reconcile it.

export interface PendingMutation {
  key: string;
  operation: 'create' | 'delete';
  kind?: string;
  /** sha256 of the stored conclusion (create), never the content itself. */
  content_sha256?: string;
  /** The conclusion id (delete). */
  id?: string;
  started_at: string;
  /** True once its tool call answered `unknown`. */
  unknown: boolean;
}

export interface LateOutcome {
  operation: 'create' | 'delete';
  kind?: string;
  content_sha256?: string;
  /** The created or deleted conclusion's id, when Honcho gave one. */
  id?: string;
  outcome: 'applied' | 'failed';
  error?: string;
  started_at: string;
  settled_at: string;
}

const LATE_OUTCOMES_KEPT = 20;

export class MutationLedger {
  private readonly pending = new Map<string, PendingMutation>();
  private readonly lateOutcomes: LateOutcome[] = [];

  has(key: string): boolean {
    return this.pending.has(key);
  }

  get(key: string): PendingMutation | undefined {
    return this.pending.get(key);
  }

  begin(entry: Omit<PendingMutation, 'started_at' | 'unknown'>): PendingMutation {
    const m: PendingMutation = { ...entry, started_at: new Date().toISOString(), unknown: false };
    this.pending.set(m.key, m);
    return m;
  }

  markUnknown(key: string): void {
    const m = this.pending.get(key);
    if (m) m.unknown = true;
  }

  /** The worker ended. Returns the late outcome it recorded, if its call had answered `unknown`. */
  settle(key: string, result: { outcome: 'applied' | 'failed'; id?: string; error?: string }): LateOutcome | undefined {
    const m = this.pending.get(key);
    if (!m) return undefined;
    this.pending.delete(key);
    if (!m.unknown) return undefined;
    const late: LateOutcome = {
      operation: m.operation,
      ...(m.kind ? { kind: m.kind } : {}),
      ...(m.content_sha256 ? { content_sha256: m.content_sha256 } : {}),
      ...(result.id ?? m.id ? { id: result.id ?? m.id } : {}),
      outcome: result.outcome,
      ...(result.error ? { error: result.error } : {}),
      started_at: m.started_at,
      settled_at: new Date().toISOString(),
    };
    this.lateOutcomes.unshift(late);
    this.lateOutcomes.length = Math.min(this.lateOutcomes.length, LATE_OUTCOMES_KEPT);
    return late;
  }

  /** Mutations whose call answered `unknown` and whose worker is still running. */
  unresolved(): Array<Omit<PendingMutation, 'key' | 'unknown'>> {
    return [...this.pending.values()].filter((m) => m.unknown).map(({ key: _key, unknown: _unknown, ...rest }) => rest);
  }

  get unresolvedCount(): number {
    let n = 0;
    for (const m of this.pending.values()) if (m.unknown) n++;
    return n;
  }

  /** How the most recent unknown mutations ended, newest first. */
  late(): LateOutcome[] {
    return [...this.lateOutcomes];
  }
}
