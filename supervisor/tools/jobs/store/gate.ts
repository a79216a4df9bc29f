import { ErrorCode, GatewayError } from '../../../../shared/errors.js';
import type { JobDatabase } from './database.js';
import { hashSecret, sameHash, stmt, type Instance } from './rows.js';

// The operator's admission gate (hermes-mcp-admission drain/resume) and each gateway process's
// SIGUSR1 pause, both kept in the database so every gateway process and the operator CLI see them.

interface GateState {
  paused: boolean;
  paused_at: number | null;
  reason: string | null;
}

export function gateState(db: JobDatabase): GateState {
  const g = stmt(db, 'SELECT paused, paused_at, reason FROM admission_gate WHERE id = 1').get() as { paused: number; paused_at: number | null; reason: string | null };
  return { paused: g.paused === 1, paused_at: g.paused_at, reason: g.reason };
}

/**
 * Claims the gate for the operator holding `ownerToken` (stored as its hash). Claiming again with
 * the same token is fine (a retried drain); a pause held by another token is refused.
 */
export function pauseAdmission(db: JobDatabase, ownerToken: string, reason: string, now: number): void {
  db.transaction(() => {
    const g = stmt(db, 'SELECT paused, owner_hash FROM admission_gate WHERE id = 1').get() as { paused: number; owner_hash: string | null };
    const mine = hashSecret(ownerToken);
    if (g.paused && g.owner_hash && !sameHash(g.owner_hash, mine)) {
      throw new GatewayError(ErrorCode.ADMISSION_GATE_HELD, 'admission is already paused by another operator token; only that token can resume it');
    }
    stmt(db, 'UPDATE admission_gate SET paused = 1, owner_hash = ?, paused_at = ?, reason = ? WHERE id = 1').run(mine, now, reason);
  }).immediate();
}

/** Releases the gate; only the token that paused it may. Returns false when it was not paused. */
export function resumeAdmission(db: JobDatabase, ownerToken: string): boolean {
  return db
    .transaction(() => {
      const g = stmt(db, 'SELECT paused, owner_hash FROM admission_gate WHERE id = 1').get() as { paused: number; owner_hash: string | null };
      if (!g.paused) return false;
      if (!g.owner_hash || !sameHash(g.owner_hash, hashSecret(ownerToken))) {
        throw new GatewayError(ErrorCode.ADMISSION_GATE_HELD, 'admission was paused by another operator token; it alone can resume it');
      }
      stmt(db, 'UPDATE admission_gate SET paused = 0, owner_hash = NULL, paused_at = NULL, reason = NULL WHERE id = 1').run();
      return true;
    })
    .immediate();
}

/** One gateway process's SIGUSR1 pause of fresh job starts. */
interface SignalPause {
  pid: number;
  paused_at: number;
}

/** Records (or clears) this process's signal pause. */
export function recordSignalPause(db: JobDatabase, instance: Instance, paused: boolean, now: number): void {
  if (paused) {
    stmt(db, 'INSERT OR REPLACE INTO signal_pauses (instance_id, pid, instance_start, paused_at) VALUES (?, ?, ?, ?)').run(instance.id, instance.pid, instance.start, now);
  } else {
    stmt(db, 'DELETE FROM signal_pauses WHERE instance_id = ?').run(instance.id);
  }
}

/** The signal pauses of gateway processes still alive (a dead process's row is dropped). */
export function liveSignalPauses(db: JobDatabase, isAlive: (pid: number, start: string) => boolean): SignalPause[] {
  const rows = stmt(db, 'SELECT instance_id, pid, instance_start, paused_at FROM signal_pauses ORDER BY paused_at').all() as Array<{ instance_id: string; pid: number; instance_start: string; paused_at: number }>;
  const live: SignalPause[] = [];
  for (const row of rows) {
    if (isAlive(row.pid, row.instance_start)) live.push({ pid: row.pid, paused_at: row.paused_at });
    else stmt(db, 'DELETE FROM signal_pauses WHERE instance_id = ?').run(row.instance_id);
  }
  return live;
}

/** The operator owner token's shape: 32–128 safe characters. */
export const OWNER_TOKEN_PATTERN = /^[A-Za-z0-9._~+\/=-]{32,128}$/;
