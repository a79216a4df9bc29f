import { sep } from 'node:path';
import { GatewayError, ErrorCode } from '../../../shared/errors.js';
import type { GatewayConfig } from '../../platform/config.js';
import type { HermesRelease } from '../../platform/hermes/release.js';

// Types, constants and small helpers shared by the skills tool modules.

export type SkillsConfig = Pick<GatewayConfig, 'hermesHome' | 'limits' | 'hermesPlatform' | 'kanbanContext' | 'inheritedEnvironment'>;

/** The configuration plus the Hermes the tools follow (SKILLS_CHANGES in release.ts). */
export interface SkillsContext extends SkillsConfig {
  release: HermesRelease;
}

export interface SkillSummary {
  name: string;
  description: string;
  category: string | null;
}

export const SUPPORT_DIRS = ['references', 'templates', 'assets', 'scripts'] as const;
export const SUPPORT_DIR_SET = new Set<string>(SUPPORT_DIRS);


export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);
}

export function checkAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new GatewayError(ErrorCode.CANCELLED, 'skills call cancelled');
}

export function toPosix(p: string): string {
  return sep === '/' ? p : p.split(sep).join('/');
}

/** Python-style code-point-ish ordering (never locale-dependent). */
export function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function sortSkills(skills: SkillSummary[]): SkillSummary[] {
  return [...skills].sort((a, b) => cmp(a.category ?? '', b.category ?? '') || cmp(a.name, b.name));
}

/** The skills directory a walk starts from. */
export interface SkillsRoot {
  /** `$HERMES_HOME/skills` as configured (lexical). */
  dir: string;
  /** Its real path: the containment boundary for every symlink. */
  real: string;
}
