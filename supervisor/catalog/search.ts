// BM25 over name + description + parameter names, built once over the frozen catalog. The index is
// small (tens of tools), so a plain inverted index beats any library in both code and speed.
// An exact tool name always ranks first: clients that already know a name must be able to find it.

export interface SearchDocument {
  name: string;
  description: string;
  parameterNames: string[];
}

const K1 = 1.2;
const B = 0.75;
const NAME_WEIGHT = 3; // name tokens count three times: "browser click" should prefer browser_click

export function tokenize(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((t) => t.length > 0);
}

export class Bm25Index {
  private readonly postings = new Map<string, Map<number, number>>(); // term -> doc -> tf
  private readonly lengths: number[] = [];
  private readonly avgLength: number;
  private readonly byName = new Map<string, number>();

  constructor(private readonly docs: readonly SearchDocument[]) {
    docs.forEach((doc, i) => {
      this.byName.set(doc.name.toLowerCase(), i);
      const terms: string[] = [];
      for (let w = 0; w < NAME_WEIGHT; w++) terms.push(...tokenize(doc.name), doc.name.toLowerCase());
      terms.push(...tokenize(doc.description));
      for (const p of doc.parameterNames) terms.push(...tokenize(p));
      this.lengths[i] = terms.length;
      for (const t of terms) {
        let docsForTerm = this.postings.get(t);
        if (!docsForTerm) this.postings.set(t, (docsForTerm = new Map()));
        docsForTerm.set(i, (docsForTerm.get(i) ?? 0) + 1);
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
    const exact = this.byName.get(query.trim().toLowerCase());
    if (exact !== undefined) scores.set(exact, Number.POSITIVE_INFINITY);
    return [...scores.entries()]
      .sort((a, b) => b[1] - a[1] || this.docs[a[0]]!.name.localeCompare(this.docs[b[0]]!.name))
      .slice(0, limit)
      .map(([doc]) => this.docs[doc]!.name);
  }
}
