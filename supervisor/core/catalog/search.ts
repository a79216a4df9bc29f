import type { ToolDefinition } from '../tool-types.js';

// BM25 over what a tool says about itself, built once over the frozen catalog (as Hermes' own tool
// search does). The index is small (tens of tools), so a plain inverted index beats any library in
// both code and speed. What is indexed, by weight: the name (three times: "browser click" should
// prefer browser_click), twice the tool's curated search keywords (policy/search-keywords.json:
// task words its description does not use, e.g. "build" for job_prepare), the description, parameter names and, at half weight,
// parameter descriptions. A tool that cannot do the work here keeps its place in the results,
// since its refusal says what to use or configure instead, but is demoted: one whose every call is
// refused by design (`alwaysRefused`) scores half, so a query about exactly its task (delegation)
// still finds it and its pointer; one whose backend is not configured in this process
// (ToolSource.configured) ranks below every tool that can run. An exact tool name always ranks
// first: clients that already know a name must be able to find it.

export interface SearchDocument {
  name: string;
  description: string;
  parameters: ReadonlyArray<{ name: string; description?: string }>;
  keywords: readonly string[];
  alwaysRefused: boolean;
  /** False when the tool's backend is not configured here. */
  configured: boolean;
}

const K1 = 1.2;
const B = 0.75;
const NAME_WEIGHT = 3;
const KEYWORD_WEIGHT = 2;
const PARAMETER_DESCRIPTION_WEIGHT = 0.5;
/** Score factor for tools whose every call is refused. */
const ALWAYS_REFUSED_FACTOR = 0.5;

// Words that carry no task in a query ("run a build in the background"); left in, they match
// nearly every description and drown the words that do.
const STOP_WORDS = new Set('a an and are as at be by do for from how i in into is it its me my of on or so that the this to use using want with'.split(' '));

/** Folds common English plurals so "builds", "tests", "processes" meet "build", "test", "process". */
function singular(term: string): string {
  if (term.length <= 3) return term;
  if (term.endsWith('ies')) return term.slice(0, -3) + 'y';
  if (/(ss|x|ch|sh)es$/.test(term)) return term.slice(0, -2);
  if (term.endsWith('s') && !/(ss|us|is)$/.test(term)) return term.slice(0, -1);
  return term;
}

export function tokenize(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((t) => t.length > 0 && !STOP_WORDS.has(t))
    .map(singular);
}

/** What tool_search indexes for one catalogued tool, given the curated keywords for its name and whether its backend is configured. */
export function searchDocument(tool: ToolDefinition, keywords: readonly string[] = [], configured = true): SearchDocument {
  const properties = (tool.inputSchema.properties as Record<string, { description?: unknown }> | undefined) ?? {};
  return {
    name: tool.name,
    description: tool.description,
    parameters: Object.entries(properties).map(([name, schema]) => ({
      name,
      ...(typeof schema?.description === 'string' ? { description: schema.description } : {}),
    })),
    keywords,
    alwaysRefused: tool.alwaysRefused === true,
    configured,
  };
}

export class Bm25Index {
  private readonly postings = new Map<string, Map<number, number>>(); // term -> doc -> weighted tf
  private readonly lengths: number[] = [];
  private readonly avgLength: number;
  private readonly byName = new Map<string, number>();

  constructor(private readonly docs: readonly SearchDocument[]) {
    docs.forEach((doc, i) => {
      this.byName.set(doc.name.toLowerCase(), i);
      const weighted = new Map<string, number>();
      let length = 0;
      const add = (terms: readonly string[], weight: number) => {
        for (const t of terms) {
          weighted.set(t, (weighted.get(t) ?? 0) + weight);
          length += weight;
        }
      };
      add([...tokenize(doc.name), doc.name.toLowerCase()], NAME_WEIGHT);
      add(doc.keywords.flatMap(tokenize), KEYWORD_WEIGHT);
      add(tokenize(doc.description), 1);
      for (const p of doc.parameters) {
        add(tokenize(p.name), 1);
        if (p.description) add(tokenize(p.description), PARAMETER_DESCRIPTION_WEIGHT);
      }
      this.lengths[i] = length;
      for (const [t, tf] of weighted) {
        let docsForTerm = this.postings.get(t);
        if (!docsForTerm) this.postings.set(t, (docsForTerm = new Map()));
        docsForTerm.set(i, tf);
      }
    });
    this.avgLength = this.lengths.reduce((a, b) => a + b, 0) / Math.max(1, docs.length);
  }

  get size(): number {
    return this.docs.length;
  }

  /** Names of the best `limit` matches, best first; ties break by name for determinism. */
  search(query: string, limit: number): string[] {
    const scores = new Map<number, number>();
    const n = this.docs.length;
    const terms = new Set([...tokenize(query), query.trim().toLowerCase()]);
    for (const term of terms) {
      const docsForTerm = this.postings.get(term);
      if (!docsForTerm) continue;
      const idf = Math.log(1 + (n - docsForTerm.size + 0.5) / (docsForTerm.size + 0.5));
      for (const [doc, tf] of docsForTerm) {
        const norm = tf + K1 * (1 - B + (B * this.lengths[doc]!) / this.avgLength);
        scores.set(doc, (scores.get(doc) ?? 0) + (idf * tf * (K1 + 1)) / norm);
      }
    }
    for (const [doc, score] of scores) if (this.docs[doc]!.alwaysRefused) scores.set(doc, score * ALWAYS_REFUSED_FACTOR);
    const exact = this.byName.get(query.trim().toLowerCase());
    if (exact !== undefined) scores.set(exact, Number.POSITIVE_INFINITY);
    // An unconfigured tool after every configured one, except by its exact name.
    const tier = (doc: number) => (doc === exact || this.docs[doc]!.configured ? 0 : 1);
    return [...scores.entries()]
      .sort((a, b) => tier(a[0]) - tier(b[0]) || b[1] - a[1] || this.docs[a[0]]!.name.localeCompare(this.docs[b[0]]!.name))
      .slice(0, limit)
      .map(([doc]) => this.docs[doc]!.name);
  }
}
