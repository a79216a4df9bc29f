import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

// What every gate shares: the gateway's URLs, the credential, an MCP client of each era, one
// /readyz snapshot (which says which backends are configured), and how a gate reports.

export type GateStatus = 'pass' | 'fail' | 'skipped';

export interface GateResult {
  id: string;
  name: string;
  status: GateStatus;
  reason: string;
}

/** Thrown inside a gate to end it as skipped (its backend is not configured here) with the reason. */
export class Skip extends Error {}

export interface Component {
  ready: boolean;
  status: string;
  reason?: string;
  required?: boolean;
  details?: Record<string, unknown>;
}

export interface GateOptions {
  /** The MCP endpoint, e.g. http://127.0.0.1:3060/mcp. */
  mcpUrl: string;
  token?: string;
  browserUrl?: string;
  lspFile?: string;
  graphCwd?: string;
  systemdUnit: string;
}

export interface ToolAnswer {
  data: Record<string, unknown>;
  isError: boolean;
  text: string;
}

export class GateContext {
  readonly baseUrl: string;
  readonly headers: Record<string, string>;
  private clients: Client[] = [];
  readyz: { status: number; body: { status?: string; components?: Record<string, Component>; reasons?: Array<{ component: string; reason: string }> } } = { status: 0, body: {} };

  constructor(readonly options: GateOptions) {
    this.baseUrl = options.mcpUrl.replace(/\/mcp\/?$/, '');
    this.headers = options.token ? { authorization: `Bearer ${options.token}` } : {};
  }

  async refreshReadiness(): Promise<void> {
    const res = await fetch(`${this.baseUrl}/readyz`);
    this.readyz = { status: res.status, body: (await res.json()) as GateContext['readyz']['body'] };
  }

  component(name: string): Component | undefined {
    return this.readyz.body.components?.[name];
  }

  /** Skips the running gate unless /readyz says `name` is ready (its reason is the skip's). */
  requireReady(name: string, what: string): void {
    const c = this.component(name);
    if (!c) throw new Skip(`/readyz reports no ${name} component`);
    if (!c.ready) throw new Skip(`${what} is not ready here (${name}: ${c.status}${c.reason ? `: ${c.reason}` : ''})`);
  }

  /** A connected SDK client: `modern` is sessionless 2026-07-28, `legacy` a 2025 session. */
  async client(era: 'modern' | 'legacy'): Promise<Client> {
    const client = new Client({ name: `hermes-mcp-gates-${era}`, version: '1.0.0' }, era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {});
    await client.connect(new StreamableHTTPClientTransport(new URL(this.options.mcpUrl), { requestInit: { headers: this.headers } }));
    this.clients.push(client);
    return client;
  }

  async call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolAnswer> {
    const r = (await client.callTool({ name, arguments: args })) as { content?: Array<{ text?: string }>; structuredContent?: Record<string, unknown>; isError?: boolean };
    return { data: r.structuredContent ?? {}, isError: r.isError === true, text: (r.content ?? []).map((c) => c.text ?? '').join('\n') };
  }

  /** A deferred tool through tool_call (with a capability token for owner-bound tools). */
  viaBridge(client: Client, name: string, args: Record<string, unknown> = {}, sessionToken?: string): Promise<ToolAnswer> {
    return this.call(client, 'tool_call', { calls: [{ name, arguments: args }], ...(sessionToken ? { session_token: sessionToken } : {}) });
  }

  /** Like viaBridge, but an error answer fails the gate with its code and message. */
  async must(client: Client, name: string, args: Record<string, unknown> = {}, sessionToken?: string): Promise<ToolAnswer> {
    const a = await this.viaBridge(client, name, args, sessionToken);
    if (a.isError) throw new Error(`${name} answered ${String(a.data.error)}: ${String(a.data.message ?? a.text).slice(0, 300)}`);
    return a;
  }

  async sessionToken(client: Client): Promise<string> {
    return (await this.must(client, 'session_open')).data.session_token as string;
  }

  async close(): Promise<void> {
    for (const c of this.clients.splice(0)) await c.close().catch(() => {});
  }
}

export function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(message);
}
