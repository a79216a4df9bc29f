import { packageVersion } from '../shared/package-root.js';
import { LOG_FORMATS, type LogFormat } from '../supervisor/platform/config.js';

// The arguments of the serving bins (hermes-mcp-gateway, hermes-mcp-lsp): every setting comes from
// the environment, so the only arguments are --help and --version, and, where a bin writes a
// console log, --log-format; anything else is a usage error (exit 2) rather than a server started
// anyway with the argument ignored.

const HELP_AND_VERSION: readonly string[] = ['--help', '-h', '--version', '-v'];

/** What the arguments asked of a bin that goes on to serve. */
export interface ServeArguments {
  logFormat?: LogFormat;
}

/** Handles `args`; returns what they set when the bin should go on to serve, else false. */
export function handleBinArguments(bin: string, usage: string, args: readonly string[], accepts: { logFormat?: boolean } = {}): ServeArguments | false {
  const [first] = args;
  if (args.length === 1 && (first === '--help' || first === '-h')) {
    process.stdout.write(usage);
    process.exitCode = 0;
    return false;
  }
  if (args.length === 1 && (first === '--version' || first === '-v')) {
    process.stdout.write(`${bin} ${packageVersion()}\n`);
    process.exitCode = 0;
    return false;
  }
  const served: ServeArguments = {};
  const refuse = (why: string): false => {
    process.stderr.write(`${bin}: ${why}\n${usage}`);
    process.exitCode = 2;
    return false;
  };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const inline = arg.startsWith('--log-format=') ? arg.slice('--log-format='.length) : undefined;
    if (!accepts.logFormat || (arg !== '--log-format' && inline === undefined)) {
      // Name the stray one, not a --help beside it.
      const unexpected = args.slice(i).find((a) => !HELP_AND_VERSION.includes(a)) ?? arg;
      return refuse(`unexpected argument ${JSON.stringify(unexpected)}; settings come from the environment`);
    }
    const value = inline ?? args[++i];
    const format = LOG_FORMATS.find((f) => f === value);
    if (!format) return refuse(`--log-format must be one of ${LOG_FORMATS.join(', ')}, got ${JSON.stringify(value ?? '')}`);
    served.logFormat = format;
  }
  return served;
}
