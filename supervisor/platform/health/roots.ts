import { statSync } from 'node:fs';
import type { GatewayConfig } from '../config.js';
import type { ReadinessComponent } from './readiness.js';
import { createRootsAdvice } from './advice.js';

// The project roots (HERMES_MCP_ROOTS): every tool that takes a working directory or a file path is
// confined to them, and the terminal starts in the first one that exists. A root that does not
// exist admits nothing, so it is reported (at startup and in /readyz) rather than silently
// skipped; with none left the gateway is not ready, since none of those tools could work.

/** The configured roots that are not existing directories. */
export function missingRoots(roots: readonly string[]): string[] {
  return roots.filter((root) => {
    try {
      return !statSync(root).isDirectory();
    } catch {
      return true;
    }
  });
}

export function rootsReadiness(config: Pick<GatewayConfig, 'roots' | 'terminalCwd'>): ReadinessComponent {
  return {
    name: 'roots',
    probe() {
      const missing = missingRoots(config.roots);
      const details = { roots: [...config.roots], missing, terminal_cwd: config.terminalCwd };
      const fix = createRootsAdvice(missing);
      if (missing.length === 0) return { ready: true, status: 'ok', details };
      if (missing.length < config.roots.length) {
        return { ready: true, status: 'partial', reason: `project roots that do not exist admit nothing: ${missing.join(', ')}`, action: fix, details };
      }
      return { ready: false, status: 'missing', reason: `no project root exists (HERMES_MCP_ROOTS=${config.roots.join(':')}): file tools, jobs and cron workdirs have nowhere to work`, action: fix, details };
    },
  };
}
