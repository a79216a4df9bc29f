import { statSync } from 'node:fs';

// Hermes' managed scope: a directory whose config.yaml (and .env) an administrator puts over every
// user's (hermes_cli/managed_scope.py get_managed_dir): HERMES_MANAGED_DIR when set, else
// /etc/hermes on POSIX, used only when it is a directory (a HERMES_MANAGED_DIR that names nothing is
// no scope at all, not /etc/hermes). The gateway reads it where Hermes would: the command guards
// apply its approvals.deny rules, and Hermes' tool server gets it under the gateway's own settings.

/** Hermes' system-wide managed scope on POSIX (hermes_cli/managed_scope.py _DEFAULT_MANAGED_DIR). */
export const SYSTEM_MANAGED_DIR = '/etc/hermes';

/** The managed scope's directory (config.hermesManagedDir, HERMES_MANAGED_DIR else /etc/hermes) when it is one; undefined otherwise. */
export function managedScopeDir(config: { readonly hermesManagedDir: string }): string | undefined {
  try {
    return statSync(config.hermesManagedDir).isDirectory() ? config.hermesManagedDir : undefined;
  } catch {
    return undefined;
  }
}
