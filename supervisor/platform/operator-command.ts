import { readFileSync, realpathSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { packageRoot } from '../../shared/package-root.js';
import { isExecutableFile } from './spawning/command-exists.js';

// How the operator runs one of the package's bins where this gateway is installed, for the texts
// that tell them to (the consent page's approve command). An installed package (npm install -g, npm
// link) has its bins on PATH; a checkout does not, and `npx --no-install` would install the checkout
// into npm's cache as a package (running its build), so there the command is the checkout's npm
// script, which runs the built file and nothing else.

/** The bins an operator runs by hand, and the checkout's npm script (package.json) for each. */
const NPM_SCRIPTS = { 'hermes-mcp-gateway': 'gateway', 'hermes-mcp-admission': 'admission', 'hermes-mcp-auth': 'auth' } as const;
export type OperatorBin = keyof typeof NPM_SCRIPTS;

export interface OperatorCommand {
  /** What to type before the bin's arguments: `hermes-mcp-auth`, or `npm run auth --`. */
  command: string;
  /** True when the command must be run in the gateway's checkout (the npm script form). */
  inCheckout: boolean;
}

function realpath(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/**
 * The bin by its name when the first `bin` on `searchPath` is this very package's (the same file
 * after symlinks), else the checkout's npm script. Only this package's bin counts: another install
 * on PATH may be another version.
 */
export function operatorCommand(bin: OperatorBin, searchPath: string): OperatorCommand {
  const root = packageRoot();
  const { bin: files } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { bin: Record<string, string> };
  const own = realpath(join(root, files[bin] ?? ''));
  const found = searchPath.split(delimiter).filter(Boolean).map((dir) => join(dir, bin)).find(isExecutableFile);
  if (own !== undefined && found !== undefined && realpath(found) === own) return { command: bin, inCheckout: false };
  return { command: `npm run ${NPM_SCRIPTS[bin]} --`, inCheckout: true };
}
