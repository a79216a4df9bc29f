// First: zod must be told not to probe for eval before any schema is built (jitless.ts).
import './jitless.js';
import { App, applyDocumentTheme, applyHostFonts, applyHostStyleVariables, type McpUiHostContext } from '@modelcontextprotocol/ext-apps';
import { errorCard, JOB_TOOLS, resultCard, type Structured, type ToolResult } from './cards.js';
import { JobCard, type CallTool } from './job.js';

// The result view: the host hands it tool_call's input (which deferred tool, which arguments) and
// its result; it renders one card, or nothing at all for results it has no picture for.

const root = document.getElementById('root')!;
const app = new App({ name: 'hermes-mcp-gateway-view', version: '1.0.0' }, {}, { autoResize: true });

let tool: string | undefined;
let inputToken: string | undefined;
/** The command the call's input carried, as the host gave it (the cards redact it before showing it). */
let inputCommand: string | undefined;
let jobCard: JobCard | undefined;

function applyContext(ctx: McpUiHostContext | undefined): void {
  if (!ctx) return;
  if (ctx.theme) applyDocumentTheme(ctx.theme);
  if (ctx.styles?.variables) applyHostStyleVariables(ctx.styles.variables);
  if (ctx.styles?.css?.fonts) applyHostFonts(ctx.styles.css.fonts);
}

const callTool: CallTool = async (name, args) => (await app.callServerTool({ name, arguments: args })) as ToolResult;

function show(node: HTMLElement | null): void {
  jobCard?.stop();
  jobCard = undefined;
  root.replaceChildren(...(node ? [node] : []));
  document.body.classList.toggle('empty', node === null);
}

function render(result: ToolResult): void {
  const s: Structured = result.structuredContent ?? {};
  const name = tool ?? '';
  if (JOB_TOOLS.has(name) && result.isError !== true && typeof s.job_id === 'string' && typeof s.state === 'string') {
    // The token only when this call carried it: job_prepare's answer, or the arguments of a job call.
    const token = typeof s.recovery_token === 'string' ? s.recovery_token : inputToken;
    show(null);
    jobCard = new JobCard(name, result, token, callTool, inputCommand);
    root.replaceChildren(jobCard.root);
    document.body.classList.remove('empty');
    return;
  }
  if (result.isError === true && typeof s.error !== 'string') {
    const text = result.content?.find((c) => c.type === 'text')?.text;
    show(text ? errorCard({ error: 'ERROR', message: text }, name || undefined) : null);
    return;
  }
  show(resultCard(name, result, inputCommand));
}

app.ontoolinput = (params) => {
  const args = (params.arguments ?? {}) as { calls?: Array<{ name?: unknown; arguments?: Record<string, unknown> }> };
  const call = Array.isArray(args.calls) ? args.calls[0] : undefined;
  tool = typeof call?.name === 'string' ? call.name : undefined;
  const token = call?.arguments?.recovery_token;
  inputToken = typeof token === 'string' ? token : undefined;
  const command = call?.arguments?.command;
  inputCommand = typeof command === 'string' && command.trim() !== '' ? command : undefined;
};
app.ontoolresult = (result) => render(result as ToolResult);
app.ontoolcancelled = () => show(null);
app.onhostcontextchanged = (ctx) => applyContext(ctx);
app.onteardown = async () => {
  jobCard?.stop();
  return {};
};

document.body.classList.add('empty');
void app.connect().then(() => applyContext(app.getHostContext()));
