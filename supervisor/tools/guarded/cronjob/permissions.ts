// Which cronjob mutations this host allows: HERMES_MCP_CRONJOB_MUTATIONS, read once when the
// tool is built (cronjob.ts) and again by its readiness probe.

export const CRONJOB_MUTATIONS_ENV = 'HERMES_MCP_CRONJOB_MUTATIONS';
export const MUTATING_ACTIONS = ['create', 'update', 'pause', 'resume', 'remove', 'run'] as const;
export type MutatingAction = (typeof MUTATING_ACTIONS)[number];

export interface CronjobPermissions {
  allowed: ReadonlySet<MutatingAction>;
  /** The setting as the host wrote it, for messages. */
  setting: string;
  /** Set when the setting could not be read (then nothing is allowed). */
  error?: string;
}

/**
 * HERMES_MCP_CRONJOB_MUTATIONS: `off` (default; also unset, empty, false, 0, no, none), `on`
 * (also true, 1, yes, all), or a comma-separated list of the mutating actions to allow, e.g.
 * `pause,resume,run`. Anything else fails closed.
 */
export function parseCronjobMutations(value: string | undefined): CronjobPermissions {
  const setting = (value ?? '').trim();
  const lower = setting.toLowerCase();
  if (['', 'off', 'false', '0', 'no', 'none'].includes(lower)) return { allowed: new Set(), setting: setting || 'off' };
  if (['on', 'true', '1', 'yes', 'all'].includes(lower)) return { allowed: new Set(MUTATING_ACTIONS), setting };
  const tokens = lower.split(',').map((t) => t.trim()).filter(Boolean);
  const unknown = tokens.filter((t) => !(MUTATING_ACTIONS as readonly string[]).includes(t));
  if (unknown.length > 0 || tokens.length === 0) {
    return {
      allowed: new Set(),
      setting,
      error: `${CRONJOB_MUTATIONS_ENV}=${JSON.stringify(setting)} is not off, on or a list of ${MUTATING_ACTIONS.join('/')}; mutations stay disabled`,
    };
  }
  return { allowed: new Set(tokens as MutatingAction[]), setting };
}

/** The allowed mutations, in MUTATING_ACTIONS order. */
export function enabledActions(permissions: CronjobPermissions): MutatingAction[] {
  return MUTATING_ACTIONS.filter((a) => permissions.allowed.has(a));
}
