import { cpSync, mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../shared/package-root.js';
import { startGatewayBin, type BinGateway } from './gateway-bin.js';
import type { TempDirs } from './temp.js';

// The README's first command on a fresh machine, staged: a package root of the built gateway
// (dist/, policy/, workers/, build/ copied, node_modules linked; `.git` makes it a checkout) and a
// machine whose HOME is an empty directory with no HERMES_HOME, so the real bin started from it
// serves the demo home it makes under the stage's .cache/demo/. This checkout's own .cache/ is never
// touched.

/** A package root of the built gateway under `temp`; `asCheckout` gives it a `.git`. */
export function stageDemoCheckout(temp: TempDirs, asCheckout: boolean): string {
  const root = temp.make('hmcp-demo-root-');
  const source = packageRoot();
  for (const entry of ['package.json', 'dist', 'policy', 'workers', 'build']) cpSync(join(source, entry), join(root, entry), { recursive: true });
  symlinkSync(join(source, 'node_modules'), join(root, 'node_modules'));
  if (asCheckout) mkdirSync(join(root, '.git'));
  return root;
}

/** A fresh machine's environment: HOME an empty directory (no ~/.hermes), no HERMES_HOME, the system PATH. */
export function freshMachine(temp: TempDirs): Record<string, string> {
  const home = temp.make('hmcp-demo-home-');
  mkdirSync(join(home, 'state'), { mode: 0o700 });
  return { HOME: home, PATH: '/usr/bin:/bin', HERMES_MCP_STATE_DIR: join(home, 'state') };
}

export interface DemoGateway extends BinGateway {
  mcpUrl: string;
  /** The staged checkout. */
  checkout: string;
  /** The demo's project root (what /readyz reports as the root and terminal_cwd). */
  root: string;
}

/** The real bin serving the demo home of a fresh staged checkout, as `npm start` on a fresh clone does. */
export async function startDemoGateway(temp: TempDirs): Promise<DemoGateway> {
  const checkout = stageDemoCheckout(temp, true);
  const gateway = await startGatewayBin(join(checkout, 'dist', 'bin', 'gateway.js'), freshMachine(temp));
  return { ...gateway, mcpUrl: `${gateway.url}/mcp`, checkout, root: join(checkout, '.cache', 'demo', 'work') };
}
