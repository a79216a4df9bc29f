import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { connect, startTestGateway, viaBridge, type TestGateway } from '../helpers/gateway.js';
import type { Limits } from '../../shared/limits.js';
import { hermes } from '../helpers/hermes.js';

// What the file-shaped surfaces share: a case's files written into a directory of its own, and a
// gateway whose roots are the fidelity workspace, called over MCP and through execute_code's
// hermes_tools.

/**
 * A file as a case gives it: text (written as UTF-8), or
 * - `{ base64 }` for exact bytes (invalid UTF-8, binary, CRLF written byte for byte),
 * - `{ repeat, times }` for `repeat` written `times` times (long files, long lines),
 * - `{ symlink }` for a symbolic link to that target (relative to the link),
 * - `{ dir: true }` for an empty directory.
 */
export type FileSpec = string | { base64: string } | { repeat: string; times: number; then?: string } | { symlink: string } | { dir: true };

/** Writes `files` (relative path -> spec) under `dir`. */
export function writeFiles(dir: string, files: Record<string, FileSpec> = {}): void {
  mkdirSync(dir, { recursive: true });
  for (const [rel, spec] of Object.entries(files)) {
    const path = join(dir, rel);
    mkdirSync(dirname(path), { recursive: true });
    if (typeof spec === 'string') writeFileSync(path, spec);
    else if ('base64' in spec) writeFileSync(path, Buffer.from(spec.base64, 'base64'));
    else if ('repeat' in spec) writeFileSync(path, spec.repeat.repeat(spec.times) + (spec.then ?? ''));
    else if ('symlink' in spec) symlinkSync(spec.symlink, path);
    else mkdirSync(path, { recursive: true });
  }
}

export interface FidelityGateway {
  gateway: TestGateway;
  client: Client;
  /** A deferred tool called through tool_call, as a client calls it: its result. */
  call(tool: string, args: Record<string, unknown>): Promise<unknown>;
  /**
   * Each call made from one execute_code script through hermes_tools: `calls` as [function,
   * keyword arguments]. The script prints its results hex-encoded, so execute_code's own output
   * redaction (a separate surface) leaves the functions' results as they returned them: it reads
   * `eyJ…` inside base64 as a JWT and `+` with digits as a phone number, and hex has neither.
   */
  hermesTools(calls: Array<[string, Record<string, unknown>]>): Promise<unknown[]>;
  close(): Promise<void>;
}

/** How a fidelity gateway differs from the default one. */
export interface FidelityGatewayOptions {
  env?: Record<string, string>;
  limits?: Partial<Limits>;
  /** The environment the gateway's children inherit. */
  inherited?: Record<string, string>;
}

/** A gateway serving `roots` (a colon-separated HERMES_MCP_ROOTS) with HERMES_HOME `home`. */
export async function startFidelityGateway(home: string, roots: string, options: FidelityGatewayOptions = {}): Promise<FidelityGateway> {
  const gateway = await startTestGateway({
    home,
    // The gateway follows the Hermes it is compared with (without starting that Hermes' tool server).
    env: { HERMES_MCP_ROOTS: roots, HERMES_MCP_HERMES_VERSION: hermes().version, ...options.env },
    limits: { executeCodeDeadlineSeconds: 120, ...options.limits },
    // The environment the gateway's children inherit (execute_code scripts see it scrubbed).
    ...(options.inherited ? { inherited: options.inherited } : {}),
  });
  const client = await connect(gateway.mcpUrl, 'modern');
  return {
    gateway,
    client,
    async call(tool, args) {
      return (await viaBridge(client, tool, args)).data;
    },
    async hermesTools(calls) {
      const code = [
        'import binascii, json, hermes_tools',
        `calls = json.loads(binascii.unhexlify(${JSON.stringify(Buffer.from(JSON.stringify(calls)).toString('hex'))}))`,
        'out = [getattr(hermes_tools, name)(**kwargs) for name, kwargs in calls]',
        'print(binascii.hexlify(json.dumps(out).encode()).decode())',
      ].join('\n');
      const r = (await viaBridge(client, 'execute_code', { code })).data as { status?: string; output?: string; error?: string };
      if (r.status !== 'success') throw new Error(`execute_code failed: ${JSON.stringify(r)}`);
      return JSON.parse(Buffer.from(String(r.output).trim(), 'hex').toString('utf8')) as unknown[];
    },
    async close() {
      await client.close();
      await gateway.close();
    },
  };
}
