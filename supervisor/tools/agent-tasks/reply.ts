import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { isBridgeTempFile, RESULT_FILE, RUN_FILE, type TaskResult } from './tasks.js';

// From an agent's final text to the result shape. A contract (HERMES_CONTRACT_PATH) usually asks
// the agent to answer JSON {status?, summary, artifacts?, next_steps?, details?}, bare or in one
// ```json fence; that is taken field by field. Any other answer is the summary itself. When the
// agent names no artifacts, the files it left in the task directory are the artifacts.

const REPORTABLE = new Set(['completed', 'failed']);

function strings(value: unknown): string[] | undefined {
  return Array.isArray(value) && value.every((v) => typeof v === 'string') ? (value as string[]) : undefined;
}

function jsonObject(text: string): Record<string, unknown> | undefined {
  const fenced = /^```(?:json)?\s*\n([\s\S]*?)\n```\s*$/.exec(text.trim());
  const candidate = (fenced ? fenced[1]! : text).trim();
  if (!candidate.startsWith('{')) return undefined;
  try {
    const value: unknown = JSON.parse(candidate);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Top-level regular files of the task directory other than the bridge's own. */
export function taskArtifacts(dir: string): string[] {
  try {
    return readdirSync(dir)
      .filter((n) => n !== RUN_FILE && n !== RESULT_FILE && !isBridgeTempFile(n) && lstatSync(join(dir, n)).isFile())
      .sort();
  } catch {
    return [];
  }
}

export function resultFromReply(id: string, text: string, dir: string, details: Record<string, unknown>): TaskResult {
  const parsed = jsonObject(text);
  const summary = typeof parsed?.summary === 'string' ? parsed.summary : text;
  const status = typeof parsed?.status === 'string' && REPORTABLE.has(parsed.status) ? parsed.status : 'completed';
  const extra = parsed?.details && typeof parsed.details === 'object' && !Array.isArray(parsed.details) ? (parsed.details as Record<string, unknown>) : {};
  return {
    id,
    status,
    summary,
    artifacts: strings(parsed?.artifacts) ?? taskArtifacts(dir),
    next_steps: strings(parsed?.next_steps) ?? [],
    details: { ...extra, ...details },
  };
}

/** The fields of a task result every agent-task tool answers with (details stay in result.json). */
export function publicResult(result: TaskResult): Record<string, unknown> {
  return { id: result.id, status: result.status, summary: result.summary, artifacts: result.artifacts, next_steps: result.next_steps };
}
