#!/usr/bin/env node
import { dirname } from 'node:path';
import { resolveBridgeSettings } from '../supervisor/tools/agent-tasks/settings.js';

// The directories the hermes-mcp-bridge profile writes, read from its .env exactly as the gateway
// reads it (supervisor/tools/agent-tasks/settings.ts): TASKS_DIR and the directory of AUDIT_LOG (rotation
// renames the log beside itself). scripts/install-units.sh adds them to the unit's ReadWritePaths,
// since ProtectHome=read-only would otherwise leave them read-only outside HERMES_HOME.
//
//   node dist/scripts/bridge-paths.js ENV_FILE HERMES_HOME USER_HOME
//   prints:  tasks_dir=<path>\naudit_dir=<path>   (exit 2 with the reason when the file is unusable)

const [envFile, hermesHome, userHome] = process.argv.slice(2);
if (!envFile || !hermesHome || !userHome) {
  process.stderr.write('usage: bridge-paths ENV_FILE HERMES_HOME USER_HOME\n');
  process.exit(2);
}
const resolution = resolveBridgeSettings(envFile, hermesHome, userHome);
if (resolution.status !== 'configured') {
  process.stderr.write(`bridge-paths: ${resolution.reason}\n`);
  process.exit(2);
}
process.stdout.write(`tasks_dir=${resolution.settings.tasksDir}\naudit_dir=${dirname(resolution.settings.auditLog)}\n`);
