import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

// What every example shares: where the gateway is, which protocol era to speak, and tool_call.
//
//   node dist/examples/typescript/<example>.js [URL] [--legacy]
//
// URL: the gateway's MCP endpoint (else $HERMES_MCP_URL, else http://127.0.0.1:3060/mcp).
// --legacy: the 2025 era (initialize, then the Mcp-Session-Id it answers with on every request);
// without it the sessionless 2026-07-28 era (no initialize: each request carries the version).

export const DEFAULT_URL = 'http://127.0.0.1:3060/mcp';

export interface Options {
  url: string;
  era: 'modern' | 'legacy';
}

export function options(argv: readonly string[] = process.argv.slice(2)): Options {
  const legacy = argv.includes('--legacy');
  const url = argv.find((a) => !a.startsWith('--')) ?? process.env.HERMES_MCP_URL ?? DEFAULT_URL;
  return { url, era: legacy ? 'legacy' : 'modern' };
}

/** A connected client: pinned to 2026-07-28 (modern), or through the 2025 initialize handshake (legacy). */
export async function connect({ url, era }: Options): Promise<Client> {
  const client = new Client(
    { name: 'hermes-mcp-gateway-example', version: '1.0.0' },
    era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  const session = transport.sessionId ? `, Mcp-Session-Id ${transport.sessionId}` : ', sessionless';
  console.log(`connected to ${url}: protocol ${transport.protocolVersion ?? '?'}${session}`);
  return client;
}

/**
 * One deferred tool through the public tool_call (`{calls: [{name, arguments}]}`, with the session
 * token beside calls when given): its structured result. A tool error throws with its code and message.
 */
export async function toolCall(client: Client, name: string, args: Record<string, unknown> = {}, sessionToken?: string): Promise<Record<string, unknown>> {
  const result = await client.callTool({
    name: 'tool_call',
    arguments: { calls: [{ name, arguments: args }], ...(sessionToken ? { session_token: sessionToken } : {}) },
  });
  const data = (result.structuredContent ?? {}) as Record<string, unknown>;
  if (result.isError) throw new Error(`${name}: ${String(data.error)}: ${String(data.message)}`);
  return data;
}

/** Runs an example: connects, runs `body`, closes; a failure prints its message and exits 1. */
export function run(body: (client: Client, opts: Options) => Promise<void>): void {
  const opts = options();
  void (async () => {
    const client = await connect(opts);
    try {
      await body(client, opts);
    } finally {
      await client.close();
    }
  })().catch((e: unknown) => {
    console.error(e instanceof Error ? e.message : e);
    process.exitCode = 1;
  });
}
