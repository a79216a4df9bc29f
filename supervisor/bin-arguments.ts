import { packageVersion } from '../shared/package-root.js';

// The arguments of the serving bins (hermes-mcp-gateway, hermes-mcp-lsp): every setting comes from
// the environment, so the only arguments are --help and --version, and anything else is a usage
// error (exit 2) rather than a server started anyway with the argument ignored.

/** Handles `args`; returns true when the bin should go on to serve. */
export function handleBinArguments(bin: string, usage: string, args: readonly string[]): boolean {
  if (args.length === 0) return true;
  const [first] = args;
  if (args.length === 1 && (first === '--help' || first === '-h')) {
    process.stdout.write(usage);
    process.exitCode = 0;
  } else if (args.length === 1 && (first === '--version' || first === '-v')) {
    process.stdout.write(`${bin} ${packageVersion()}\n`);
    process.exitCode = 0;
  } else {
    const unexpected = args.find((a) => !['--help', '-h', '--version', '-v'].includes(a)) ?? first;
    process.stderr.write(`${bin}: unexpected argument ${JSON.stringify(unexpected)}; settings come from the environment\n${usage}`);
    process.exitCode = 2;
  }
  return false;
}
