import type { ReadinessReason } from '../platform/health/readiness.js';
import type { Gateway } from '../core/gateway.js';

// Once the gateway listens: where it serves, which readiness components are ready, the one thing to
// do for each that is not, required or optional (the reasons and actions /readyz gives, from the
// same probes and worded by the same function, readiness.ts notReadyReason), and a first client
// command to paste, as a few lines for a person (the readable log format only).

/** The MCP Inspector's CLI lists the tools; it needs Node >= 22, hence its own `node@22`. */
export function inspectorCommand(mcpUrl: string): string {
  return `npx -y -p node@22 -p @modelcontextprotocol/inspector@2.12.0 mcp-inspector --cli ${mcpUrl} --transport http --method tools/list`;
}

/** A component that is not ready, as /readyz words it, with its status. */
type NotReady = ReadinessReason & { status: string };

export interface StartupSummary {
  url: string;
  ready: boolean;
  ready_components: string[];
  /** Required components that are not ready, as /readyz's `reasons` say. */
  not_ready: NotReady[];
  /** Components declared optional (HERMES_MCP_OPTIONAL_COMPONENTS) that are not ready, with /readyz's reason and action. */
  optional_not_ready: NotReady[];
  first_client_command: string;
  /** Said when loopback calls need a credential too (HERMES_MCP_AUTH, a public URL). */
  credential_note?: string;
}

export async function startupSummary(running: { gateway: Pick<Gateway, 'readiness'>; url: string }, authRequired: boolean): Promise<StartupSummary> {
  const report = await running.gateway.readiness.check();
  const entries = Object.entries(report.components);
  // Each reason with its component's status word, as /readyz's `components` give it.
  const withStatus = (r: ReadinessReason): NotReady => ({ ...r, status: report.components[r.component]?.status ?? 'error' });
  const mcpUrl = `${running.url}/mcp`;
  return {
    url: mcpUrl,
    ready: report.ready,
    ready_components: entries.filter(([, c]) => c.ready).map(([name]) => name),
    not_ready: report.reasons.map(withStatus),
    optional_not_ready: report.optionalReasons.map(withStatus),
    first_client_command: inspectorCommand(mcpUrl),
    ...(authRequired ? { credential_note: 'this gateway asks for a credential on loopback too: give the Inspector a static token (hermes-mcp-auth --help; docs/connect-chatgpt.md, Static tokens)' } : {}),
  };
}

/** The summary as lines for a person. */
export function summaryLines(s: StartupSummary): string {
  const lines = [
    `hermes-mcp-gateway serving ${s.url}: ${s.ready ? 'ready' : `not ready (${s.not_ready.length} required component${s.not_ready.length === 1 ? '' : 's'})`}`,
    `  ready: ${s.ready_components.join(', ') || '(none)'}`,
    ...s.not_ready.flatMap((r) => [`  not ready: ${r.component} (${r.status}): ${r.reason}`, `    to do: ${r.action}`]),
    ...s.optional_not_ready.flatMap((r) => [`  optional, not ready: ${r.component} (${r.status}): ${r.reason}`, `    to do: ${r.action}`]),
    '  first client command:',
    `    ${s.first_client_command}`,
    ...(s.credential_note ? [`    (${s.credential_note})`] : []),
  ];
  return `${lines.join('\n')}\n`;
}

/**
 * Writes the summary as lines for a person (the pretty format only). A service's JSON log gets no
 * summary: /readyz answers the same, and probing every backend at start would make an idle
 * gateway load what only a readiness check needs (fetch, the backends' clients).
 */
export async function reportStartup(running: { gateway: Pick<Gateway, 'readiness'>; url: string }, options: { authRequired: boolean; out?: NodeJS.WritableStream }): Promise<void> {
  (options.out ?? process.stderr).write(summaryLines(await startupSummary(running, options.authRequired)));
}
