import { closeSync, fstatSync, openSync, readSync, constants } from 'node:fs';
import { join } from 'node:path';
import { parsePyYaml } from './yaml.js';

// Hermes' own config.yaml ($HERMES_HOME/config.yaml), read the same bounded, no-follow way by every
// adapter that needs a setting from it (cron timezone and default model, Honcho base URL). Read on
// each call: it is small, and Hermes may change it while the gateway runs.

interface HermesConfig {
  /** The parsed mapping; undefined when the file is missing, unreadable or not a mapping. */
  doc?: Record<string, unknown>;
  /** Why an existing file could not be used (missing is not an error). */
  error?: string;
}

/**
 * A Hermes config file's YAML, read bounded (`maxBytes`, the `hermesConfigMaxBytes` limit): `follow` opens a symbolic link as
 * Hermes does, else a link is refused (O_NOFOLLOW). `missing` when there is no file; otherwise the
 * parsed document, or why it cannot be used.
 */
export function readConfigYaml(file: string, follow: boolean, maxBytes: number): { missing: true } | { doc: unknown } | { error: string } {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | (follow ? 0 : constants.O_NOFOLLOW));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? { missing: true } : { error: `cannot be opened (${code ?? (e as Error).message})` };
  }
  try {
    const size = fstatSync(fd).size;
    if (size > maxBytes) return { error: `is larger than ${maxBytes} bytes (hermesConfigMaxBytes)` };
    const buf = Buffer.alloc(size);
    let read = 0;
    while (read < size) {
      const n = readSync(fd, buf, read, size - read, read);
      if (n === 0) break;
      read += n;
    }
    return { doc: parsePyYaml(buf.subarray(0, read).toString('utf8')) };
  } catch (e) {
    return { error: `cannot be parsed as YAML (${(e as Error).message.split('\n')[0]})` };
  } finally {
    closeSync(fd);
  }
}

export function readHermesConfig(hermesHome: string, maxBytes: number): HermesConfig {
  const file = join(hermesHome, 'config.yaml');
  const read = readConfigYaml(file, false, maxBytes);
  if ('missing' in read) return {};
  if ('error' in read) return { error: `${file}: ${read.error}` };
  const { doc } = read;
  return doc && typeof doc === 'object' && !Array.isArray(doc) ? { doc: doc as Record<string, unknown> } : {};
}
