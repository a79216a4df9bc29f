import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { packageRoot } from '../shared/package-root.js';

// What both benches need: the real gateway bin (run through its shebang, so with its production
// Node flags), the same flags for the floor server, and a launcher that waits for a process to
// announce its port. Every process started here is tracked so the bench can stop it by pid.

export const gatewayMain = join(packageRoot(), 'dist', 'bin', 'gateway.js');
export const floorServer = join(packageRoot(), 'dist', 'bench', 'floor-server.js');
export const sdkFloorServer = join(packageRoot(), 'dist', 'bench', 'sdk-floor-server.js');
export const nodeFlags = (/^#!\/usr\/bin\/env -S node(.*)$/m.exec(readFileSync(gatewayMain, 'utf8'))?.[1] ?? '').trim().split(/\s+/).filter(Boolean);

export const started = new Set<ChildProcess>();

export async function launch(
  command: string,
  args: string[],
  childEnv: NodeJS.ProcessEnv,
  portOf: (line: string) => number | undefined,
  stream: 'stdout' | 'stderr',
): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(command, args, { env: { ...process.env, ...childEnv }, stdio: ['ignore', 'pipe', 'pipe'] });
  started.add(child);
  child.once('exit', () => started.delete(child));
  // Both pipes are drained for the child's whole life (a full pipe would stall it).
  child[stream === 'stdout' ? 'stderr' : 'stdout']!.resume();
  const lines = createInterface({ input: child[stream]! });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (c) => reject(new Error(`${command} exited with ${c}`)));
    child.once('error', reject);
    lines.on('line', (l) => {
      const p = portOf(l);
      if (p) resolve(p);
    });
  });
  return { child, port };
}

/** The port in a JSON log line (optionally only from one event). */
export function parsePort(line: string, event?: string): number | undefined {
  try {
    const j = JSON.parse(line) as { port?: number; event?: string };
    return !event || j.event === event ? j.port : undefined;
  } catch {
    return undefined;
  }
}

/** The gateway bin on an ephemeral port with its own HERMES_HOME; resolves once it listens. */
export function launchGateway(home: string, extraEnv: NodeJS.ProcessEnv = {}) {
  // HOME too: Hermes' ~/.hermes and ~/.honcho configuration fallbacks must not find the real account's.
  return launch(gatewayMain, [], { HERMES_HOME: home, HOME: home, HERMES_MCP_PORT: '0', HERMES_MCP_ROOTS: home, ...extraEnv }, (l) => parsePort(l, 'listening'), 'stderr');
}

/** The bare-Hono floor server with the gateway's Node flags. */
export function launchFloor() {
  return launch(process.execPath, [...nodeFlags, floorServer], {}, (l) => parsePort(l), 'stdout');
}

/** The MCP SDK floor server (SDK handler, one no-op tool) with the gateway's Node flags. */
export function launchSdkFloor(resultFile?: string) {
  return launch(process.execPath, [...nodeFlags, sdkFloorServer], resultFile ? { SDK_FLOOR_RESULT_FILE: resultFile } : {}, (l) => parsePort(l), 'stdout');
}
