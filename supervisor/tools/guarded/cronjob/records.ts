import { isAbsolute } from 'node:path';
import { ErrorCode, GatewayError } from '../../../../shared/errors.js';
import { canonicalSkills } from './format.js';

// The gateway's own checks of the cronjob arguments it passes on to Hermes (tools/cronjob_tools.py
// takes them as they are): deliver and failure_deliver have the shape of delivery targets, skills
// are skill names, context_from is a list of job ids.

const DELIVER_TOKEN = /^[A-Za-z][A-Za-z0-9_-]*(?::[^,\u0000-\u001f]+)?$/;

export function invalidArgs(message: string): GatewayError {
  return new GatewayError(ErrorCode.INVALID_ARGUMENTS, message);
}

/** `_normalize_deliver_param` plus a shape check: comma-separated `local`, `origin`, `all`, `platform` or `platform:chat_id[:thread_id]`. */
export function normalizeDeliver(value: unknown, field = 'deliver'): string | null {
  if (value === undefined || value === null) return null;
  const text = String(value).trim();
  if (!text) return null;
  const parts = text.split(',').map((p) => p.trim());
  if (parts.some((p) => !p || !DELIVER_TOKEN.test(p))) {
    throw invalidArgs(`cronjob: ${field} ${JSON.stringify(text)} is not a delivery target: use 'local' (the default), 'origin', 'all', 'platform' or 'platform:chat_id[:thread_id]', comma-separated to combine`);
  }
  return parts.join(',');
}

export function skillsArg(value: unknown): string[] | undefined {
  if (value === undefined) return undefined;
  const skills = canonicalSkills(null, value);
  for (const s of skills) {
    if (s.split(/[/\\]/).some((seg) => seg === '..') || isAbsolute(s)) throw invalidArgs(`cronjob: skill name ${JSON.stringify(s)} is not a skill name`);
  }
  return skills;
}

export function contextFromArg(value: unknown): string[] | undefined {
  if (value === undefined) return undefined;
  const refs: string[] = [];
  for (const r of value as string[]) {
    const t = r.trim();
    if (t && !refs.includes(t)) refs.push(t);
  }
  return refs;
}
