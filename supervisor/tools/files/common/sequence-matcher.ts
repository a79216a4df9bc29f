// A port of the parts of Python's `difflib.SequenceMatcher` that Hermes' fuzzy matching relies on
// (ratio, quick ratios, opcodes), over strings (UTF-16 code units). Same algorithm as CPython,
// including the default "autojunk" heuristic: in a second sequence of 200+ items, an item that
// occurs in more than 1% (+1) of positions is "popular" and never starts a match. Keeping the
// heuristic keeps similarity scores, and therefore fuzzy-match decisions, close to upstream's.

type Opcode = ['equal' | 'replace' | 'delete' | 'insert', number, number, number, number];

type Block = [number, number, number];

export class SequenceMatcher {
  private readonly b2j = new Map<string, number[]>();
  private matchingBlocks: Block[] | null = null;

  constructor(
    private readonly a: string,
    private readonly b: string,
  ) {
    for (let j = 0; j < b.length; j++) {
      const ch = b[j]!;
      const list = this.b2j.get(ch);
      if (list) list.push(j);
      else this.b2j.set(ch, [j]);
    }
    const n = b.length;
    if (n >= 200) {
      const ntest = Math.floor(n / 100) + 1;
      for (const [ch, idxs] of [...this.b2j]) if (idxs.length > ntest) this.b2j.delete(ch);
    }
  }

  private findLongestMatch(alo: number, ahi: number, blo: number, bhi: number): Block {
    const { a, b } = this;
    let besti = alo;
    let bestj = blo;
    let bestsize = 0;
    let j2len = new Map<number, number>();
    for (let i = alo; i < ahi; i++) {
      const newj2len = new Map<number, number>();
      const idxs = this.b2j.get(a[i]!);
      if (idxs) {
        for (const j of idxs) {
          if (j < blo) continue;
          if (j >= bhi) break;
          const k = (j2len.get(j - 1) ?? 0) + 1;
          newj2len.set(j, k);
          if (k > bestsize) {
            besti = i - k + 1;
            bestj = j - k + 1;
            bestsize = k;
          }
        }
      }
      j2len = newj2len;
    }
    // No explicit junk: extend the match over equal (possibly popular) neighbours.
    while (besti > alo && bestj > blo && a[besti - 1] === b[bestj - 1]) {
      besti--;
      bestj--;
      bestsize++;
    }
    while (besti + bestsize < ahi && bestj + bestsize < bhi && a[besti + bestsize] === b[bestj + bestsize]) bestsize++;
    return [besti, bestj, bestsize];
  }

  getMatchingBlocks(): Block[] {
    if (this.matchingBlocks) return this.matchingBlocks;
    const la = this.a.length;
    const lb = this.b.length;
    const queue: Array<[number, number, number, number]> = [[0, la, 0, lb]];
    const blocks: Block[] = [];
    while (queue.length > 0) {
      const [alo, ahi, blo, bhi] = queue.pop()!;
      const x = this.findLongestMatch(alo, ahi, blo, bhi);
      const [i, j, k] = x;
      if (k > 0) {
        blocks.push(x);
        if (alo < i && blo < j) queue.push([alo, i, blo, j]);
        if (i + k < ahi && j + k < bhi) queue.push([i + k, ahi, j + k, bhi]);
      }
    }
    blocks.sort((p, q) => p[0] - q[0] || p[1] - q[1] || p[2] - q[2]);
    // Collapse adjacent blocks.
    const merged: Block[] = [];
    let [i1, j1, k1] = [0, 0, 0];
    for (const [i2, j2, k2] of blocks) {
      if (i1 + k1 === i2 && j1 + k1 === j2) {
        k1 += k2;
      } else {
        if (k1) merged.push([i1, j1, k1]);
        [i1, j1, k1] = [i2, j2, k2];
      }
    }
    if (k1) merged.push([i1, j1, k1]);
    merged.push([la, lb, 0]);
    this.matchingBlocks = merged;
    return merged;
  }

  getOpcodes(): Opcode[] {
    let i = 0;
    let j = 0;
    const answer: Opcode[] = [];
    for (const [ai, bj, size] of this.getMatchingBlocks()) {
      let tag: Opcode[0] | '' = '';
      if (i < ai && j < bj) tag = 'replace';
      else if (i < ai) tag = 'delete';
      else if (j < bj) tag = 'insert';
      if (tag) answer.push([tag, i, ai, j, bj]);
      i = ai + size;
      j = bj + size;
      if (size) answer.push(['equal', ai, i, bj, j]);
    }
    return answer;
  }

  ratio(): number {
    const total = this.a.length + this.b.length;
    if (total === 0) return 1;
    const matches = this.getMatchingBlocks().reduce((sum, [, , k]) => sum + k, 0);
    return (2 * matches) / total;
  }

  /** Upper bound on ratio() from the multiset intersection (difflib `quick_ratio`). */
  quickRatio(): number {
    const total = this.a.length + this.b.length;
    if (total === 0) return 1;
    const avail = new Map<string, number>();
    for (const ch of this.b) avail.set(ch, (avail.get(ch) ?? 0) + 1);
    let matches = 0;
    for (const ch of this.a) {
      const n = avail.get(ch) ?? 0;
      if (n > 0) {
        matches++;
        avail.set(ch, n - 1);
      }
    }
    return (2 * matches) / total;
  }

  /** Upper bound on ratio() from the lengths alone (difflib `real_quick_ratio`). */
  realQuickRatio(): number {
    const total = this.a.length + this.b.length;
    return total === 0 ? 1 : (2 * Math.min(this.a.length, this.b.length)) / total;
  }
}

/** ratio(a, b), skipping the full computation when a cheap upper bound is already below `atLeast`. */
export function similarity(a: string, b: string, atLeast = 0): number {
  if (a === b) return 1;
  const sm = new SequenceMatcher(a, b);
  if (atLeast > 0) {
    const rq = sm.realQuickRatio();
    if (rq < atLeast) return rq;
    const q = sm.quickRatio();
    if (q < atLeast) return q;
  }
  return sm.ratio();
}
