import { fileURLToPath } from 'node:url';
import type { Diagnostic, DocumentSymbol, Hover, Location, LocationLink, MarkedString, Range, SymbolInformation } from 'vscode-languageserver-protocol';

// LSP results as the tools return them: positions 1-based (LSP counts from 0; `character` stays in
// UTF-16 code units, LSP's default encoding), file URIs as absolute paths, enums as names, and
// every shape an LSP result may take (Location | Location[] | LocationLink[], DocumentSymbol[] |
// SymbolInformation[], the three hover content forms) reduced to one.

export interface Span {
  line: number;
  character: number;
  end_line: number;
  end_character: number;
}

function span(range: Range): Span {
  return { line: range.start.line + 1, character: range.start.character + 1, end_line: range.end.line + 1, end_character: range.end.character + 1 };
}

/** `{path}` for a file URI, `{uri}` for anything else (a server's virtual documents). */
function where(uri: string): { path: string } | { uri: string } {
  if (uri.startsWith('file:')) {
    try {
      return { path: fileURLToPath(uri) };
    } catch {
      // not a local file URI
    }
  }
  return { uri };
}

const SYMBOL_KINDS = ['File', 'Module', 'Namespace', 'Package', 'Class', 'Method', 'Property', 'Field', 'Constructor', 'Enum', 'Interface', 'Function', 'Variable', 'Constant', 'String', 'Number', 'Boolean', 'Array', 'Object', 'Key', 'Null', 'EnumMember', 'Struct', 'Event', 'Operator', 'TypeParameter'];
const SEVERITIES = ['error', 'warning', 'information', 'hint'];

function symbolKind(kind: number): string {
  return SYMBOL_KINDS[kind - 1] ?? `kind-${kind}`;
}

export function shapeLocations(result: unknown): Array<({ path: string } | { uri: string }) & Span> {
  if (!result) return [];
  const list = (Array.isArray(result) ? result : [result]) as Array<Location | LocationLink>;
  return list.map((l) => ('targetUri' in l ? { ...where(l.targetUri), ...span(l.targetSelectionRange ?? l.targetRange) } : { ...where(l.uri), ...span(l.range) }));
}

interface ShapedSymbol extends Span {
  name: string;
  kind: string;
  detail?: string;
  container?: string;
  children?: ShapedSymbol[];
}

function shapeDocumentSymbol(s: DocumentSymbol): ShapedSymbol {
  return {
    name: s.name,
    kind: symbolKind(s.kind),
    ...(s.detail ? { detail: s.detail } : {}),
    // Where the name is (what hover/definition/references want), not the whole declaration.
    ...span(s.selectionRange ?? s.range),
    ...(s.children && s.children.length > 0 ? { children: s.children.map(shapeDocumentSymbol) } : {}),
  };
}

/** Hierarchical when the server gives DocumentSymbol, flat (with `container`) for SymbolInformation. */
export function shapeSymbols(result: unknown): { symbols: ShapedSymbol[]; hierarchical: boolean; count: number } {
  const list = (Array.isArray(result) ? result : []) as Array<DocumentSymbol | SymbolInformation>;
  const hierarchical = list.length > 0 && 'selectionRange' in list[0]!;
  const symbols = list.map((s) =>
    'location' in s
      ? { name: s.name, kind: symbolKind(s.kind), ...(s.containerName ? { container: s.containerName } : {}), ...span(s.location.range) }
      : shapeDocumentSymbol(s),
  );
  const count = (items: ShapedSymbol[]): number => items.reduce((n, s) => n + 1 + count(s.children ?? []), 0);
  return { symbols, hierarchical, count: count(symbols) };
}

function markedText(m: MarkedString): string {
  return typeof m === 'string' ? m : '```' + m.language + '\n' + m.value + '\n```';
}

export function shapeHover(result: unknown): { found: boolean; kind?: 'markdown' | 'plaintext'; contents?: string; range?: Span } {
  const hover = result as Hover | null;
  if (!hover || !hover.contents) return { found: false };
  const c = hover.contents;
  let kind: 'markdown' | 'plaintext' = 'markdown';
  let contents: string;
  if (Array.isArray(c)) contents = c.map(markedText).join('\n\n');
  else if (typeof c === 'object' && 'kind' in c) {
    kind = c.kind === 'plaintext' ? 'plaintext' : 'markdown';
    contents = c.value;
  } else contents = markedText(c);
  if (contents.trim() === '') return { found: false };
  return { found: true, kind, contents, ...(hover.range ? { range: span(hover.range) } : {}) };
}

export function shapeDiagnostics(result: unknown): { diagnostics: Array<Span & { severity: string; message: string; code?: string | number; source?: string }>; counts: Record<string, number> } {
  const items = (Array.isArray(result) ? result : []) as Diagnostic[];
  const counts: Record<string, number> = { error: 0, warning: 0, information: 0, hint: 0 };
  const diagnostics = items.map((d) => {
    // LSP: a diagnostic without a severity is the client's to interpret; editors show it as an error.
    const severity = SEVERITIES[(d.severity ?? 1) - 1] ?? 'error';
    counts[severity] = (counts[severity] ?? 0) + 1;
    return {
      severity,
      // LSP 3.18 allows markup in a message; its text is what matters here.
      message: typeof d.message === 'string' ? d.message : d.message.value,
      ...span(d.range),
      ...(d.code !== undefined ? { code: d.code } : {}),
      ...(d.source ? { source: d.source } : {}),
    };
  });
  return { diagnostics, counts };
}
