// The only way the view builds DOM: elements by tag, classes, and text nodes. Result data is never
// parsed as markup (no innerHTML, no insertAdjacentHTML, no attribute named by data), so a line
// holding `<img src=x onerror=...>` is shown as those characters and runs nothing.

export type Child = Node | string | null | undefined | false;

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string, ...children: Child[]): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) node.className = className;
  for (const child of children) if (child !== null && child !== undefined && child !== false) node.append(child);
  return node;
}

export function button(label: string, className: string, onClick: () => void): HTMLButtonElement {
  const b = el('button', className, label);
  b.type = 'button';
  b.addEventListener('click', onClick);
  return b;
}

/** `node` shown, but not read out by screen readers (a mark whose meaning is also in words). */
export function hiddenFromReaders<T extends HTMLElement>(node: T): T {
  node.setAttribute('aria-hidden', 'true');
  return node;
}

/** Words for screen readers only (the visual card says the same with a mark or its layout). */
export function readersOnly(text: string): HTMLElement {
  return el('span', 'readers-only', text);
}

/** A <details> block: `summary` always shown, the body on demand. */
export function collapsible(summary: Child, body: Node, open = true): HTMLDetailsElement {
  const d = el('details', 'block', el('summary', undefined, summary), body);
  d.open = open;
  return d;
}

/** "1 m 05 s" for a duration in milliseconds. */
export function duration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} m ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, '0')} m`;
}
