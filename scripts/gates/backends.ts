import { randomBytes } from 'node:crypto';
import { dirname } from 'node:path';
import { check, Skip, type GateContext } from './context.js';

// Gates 3 to 5: the guarded capabilities, Honcho memory, and discovery with representative calls
// into each backend (LSP, browser, code graph). A backend /readyz does not report ready is skipped
// with /readyz's own reason: a gate never passes without having exercised what it names.

const PUBLIC_SIX = ['memory_context', 'skills_list', 'startup_context', 'tool_call', 'tool_describe', 'tool_search'];

export async function guardedGate(ctx: GateContext): Promise<string> {
  const client = await ctx.client('modern');
  const cron = await ctx.must(client, 'cronjob', { action: 'list' });
  check(Array.isArray(cron.data.jobs), 'cronjob list gave no jobs array');
  const delegate = await ctx.viaBridge(client, 'delegate_task', { goal: 'hermes-mcp gate: must be refused before inference' });
  check(delegate.isError && delegate.data.error === 'DELEGATION_REQUIRES_JOB', `delegate_task answered ${String(delegate.data.error ?? 'a result')}`);
  return `cronjob list read ${(cron.data.jobs as unknown[]).length} jobs; delegate_task refused (DELEGATION_REQUIRES_JOB)`;
}

export async function sessionSearchGate(ctx: GateContext): Promise<string> {
  const db = ctx.component('session_db');
  if (db && db.status !== 'ok') throw new Skip(`no Hermes session database to search (session_db: ${db.status}${db.reason ? `: ${db.reason}` : ''})`);
  const client = await ctx.client('modern');
  const recent = await ctx.must(client, 'session_search', {});
  const found = await ctx.must(client, 'session_search', { query: 'hermes' });
  return `session_search answered (browse: ${JSON.stringify(recent.data).length} chars, query: ${JSON.stringify(found.data).length} chars)`;
}

export async function honchoGate(ctx: GateContext): Promise<string> {
  ctx.requireReady('memory', 'Honcho memory');
  const client = await ctx.client('modern');
  await ctx.must(client, 'memory_profile');
  const context = await ctx.call(client, 'memory_context', {});
  check(!context.isError, `memory_context answered ${String(context.data.error)}`);
  await ctx.must(client, 'memory_search', { query: 'preferences' });
  const fact = `hermes-mcp gate check ${randomBytes(4).toString('hex')}: the gate prefers tidy conclusions`;
  const created = await ctx.must(client, 'memory_conclude', { action: 'create', kind: 'preference', conclusion: fact });
  const id = (created.data.conclusion as { id?: string } | undefined)?.id;
  check(id, `memory_conclude create gave no id: ${JSON.stringify(created.data).slice(0, 200)}`);
  try {
    const listed = await ctx.must(client, 'memory_conclude', { action: 'list' });
    check((listed.data.conclusions as Array<{ id: string }>).some((c) => c.id === id), 'the created conclusion is not listed');
  } finally {
    await ctx.must(client, 'memory_conclude', { action: 'delete', id });
  }
  const after = await ctx.must(client, 'memory_conclude', { action: 'list' });
  check(!(after.data.conclusions as Array<{ id: string }>).some((c) => c.id === id), 'the deleted conclusion is still listed');
  return 'profile, context, search; conclusion created, read back, deleted and gone';
}

export async function discoveryGate(ctx: GateContext): Promise<string> {
  const legacy = await ctx.client('legacy');
  const modern = await ctx.client('modern');
  for (const [era, client] of [['legacy', legacy], ['modern', modern]] as const) {
    const names = (await client.listTools()).tools.map((t) => t.name).sort();
    check(JSON.stringify(names) === JSON.stringify(PUBLIC_SIX), `${era} tools/list: ${names.join(', ')}`);
  }
  const search = await ctx.call(modern, 'tool_search', { queries: ['read a file'] });
  const matches = (search.data.results as Array<{ matches: string[] }>)[0]?.matches ?? [];
  check(matches.includes('read_file'), `tool_search "read a file" found ${matches.join(', ')}`);
  const described = await ctx.call(modern, 'tool_describe', { names: ['read_file'] });
  check((described.data.tools as Record<string, { parameters?: unknown }>).read_file?.parameters, 'tool_describe gave no schema for read_file');
  for (const hidden of ['read_file', 'terminal']) {
    const direct = await ctx.call(modern, hidden, {});
    check(direct.isError && direct.data.error === 'TOOL_NOT_PUBLIC', `a direct ${hidden} call answered ${String(direct.data.error ?? 'a result')}`);
  }
  return 'initialize + exact six-tool tools/list in both eras; search, describe; direct hidden calls refused (TOOL_NOT_PUBLIC)';
}

/** A source file for the LSP call: --lsp-file, else the first .ts/.py file under a trusted root. */
async function lspFile(ctx: GateContext, roots: string[]): Promise<string> {
  if (ctx.options.lspFile) return ctx.options.lspFile;
  const client = await ctx.client('modern');
  for (const root of roots) {
    for (const pattern of ['*.ts', '*.py']) {
      const r = await ctx.viaBridge(client, 'search_files', { pattern, target: 'files', path: root, limit: 5 });
      const files = ((r.data.files as string[] | undefined) ?? []).filter((f) => !f.includes('/node_modules/') && !f.endsWith('.d.ts'));
      if (files[0]) return files[0];
    }
  }
  throw new Skip(`no .ts or .py file under the trusted roots (${roots.join(', ')}); pass --lsp-file`);
}

export async function lspGate(ctx: GateContext): Promise<string> {
  ctx.requireReady('lsp', 'the LSP adapter');
  const roots = (ctx.component('lsp')?.details?.trusted_roots as string[] | undefined) ?? [];
  const file = await lspFile(ctx, roots);
  const client = await ctx.client('modern');
  const symbols = await ctx.must(client, 'lsp_document_symbols', { path: file });
  check(Array.isArray(symbols.data.symbols), `lsp_document_symbols gave no symbols array for ${file}`);
  return `lsp_document_symbols on ${file}: ${(symbols.data.symbols as unknown[]).length} symbols`;
}

export async function browserGate(ctx: GateContext): Promise<string> {
  ctx.requireReady('browser', 'the Camofox browser');
  const url = ctx.options.browserUrl ?? 'https://example.com/';
  const client = await ctx.client('modern');
  const token = await ctx.sessionToken(client);
  try {
    await ctx.must(client, 'browser_navigate', { url }, token);
    const snap = await ctx.must(client, 'browser_snapshot', {}, token);
    check(snap.text.trim().length > 0, 'browser_snapshot was empty');
    return `browser_navigate ${url} and browser_snapshot (${snap.text.length} chars)`;
  } finally {
    await ctx.viaBridge(client, 'session_close', {}, token).catch(() => undefined);
  }
}

/** The project for the graph call: --graph-cwd, else the directory of the first tsconfig.json under a root. */
async function graphCwd(ctx: GateContext): Promise<string> {
  if (ctx.options.graphCwd) return ctx.options.graphCwd;
  const roots = (ctx.component('roots')?.details?.roots as string[] | undefined) ?? [];
  const client = await ctx.client('modern');
  for (const root of roots) {
    const r = await ctx.viaBridge(client, 'search_files', { pattern: 'tsconfig.json', target: 'files', path: root, limit: 5 });
    const files = ((r.data.files as string[] | undefined) ?? []).filter((f) => !f.includes('/node_modules/'));
    if (files[0]) return dirname(files[0]);
  }
  throw new Skip(`no project (tsconfig.json) under the roots (${roots.join(', ')}); pass --graph-cwd`);
}

export async function graphGate(ctx: GateContext): Promise<string> {
  ctx.requireReady('graph', 'the code graph');
  const cwd = await graphCwd(ctx);
  const client = await ctx.client('modern');
  const args = { cwd, question: 'which symbols does this project define', draft: 'list the project overview', review: 'an overview request', request: { type: 'overview' } };
  const a = await ctx.viaBridge(client, 'inspect_code_graph', args);
  // The upstream's own request schema decides what a request looks like; an argument error from
  // the gateway's validator means the gate's request is wrong for this upstream, not a pass.
  check(!a.isError, `inspect_code_graph in ${cwd}: ${String(a.data.error ?? '')} ${a.text.slice(0, 300)}`);
  return `inspect_code_graph answered in ${cwd} (${a.text.length} chars)`;
}
