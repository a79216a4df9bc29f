import { closeSync, fstatSync, openSync, readSync, constants } from 'node:fs';
import { join } from 'node:path';
import { parsePyYaml } from './yaml.js';

// Hermes' own config.yaml ($HERMES_HOME/config.yaml), read the same bounded, no-follow way by every
// adapter that needs a setting from it (cron timezone and default model, Honcho base URL). Read on
// each call: it is small, and Hermes may change it while the gateway runs.

/** Hermes' config.yaml is small; anything past this is not a config file to trust. */
export const CONFIG_MAX_BYTES = 4 * 1024 * 1024;

interface HermesConfig {
  /** The parsed mapping; undefined when the file is missing, unreadable or not a mapping. */
  doc?: Record<string, unknown>;
  /** Why an existing file could not be used (missing is not an error). */
  error?: string;
}

export function readHermesConfig(hermesHome: string): HermesConfig {
  const file = join(hermesHome, 'config.yaml');
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? {} : { error: `${file}: ${code}` };
  }
  try {
    const size = fstatSync(fd).size;
    if (size > CONFIG_MAX_BYTES) return { error: `${file}: larger than ${CONFIG_MAX_BYTES} bytes` };
    const buf = Buffer.alloc(size);
    let read = 0;
    while (read < size) {
      const n = readSync(fd, buf, read, size - read, read);
      if (n === 0) break;
      read += n;
    }
    const doc = parsePyYaml(buf.subarray(0, read).toString('utf8'));
    return doc && typeof doc === 'object' && !Array.isArray(doc) ? { doc: doc as Record<string, unknown> } : {};
  } catch (e) {
    return { error: `${file}: ${(e as Error).message.split('\n')[0]}` };
  } finally {
    closeSync(fd);
  }
}
