// Durations as people read them in descriptions and error messages, from the configured value
// (never a default baked into the text): 5 → "5 seconds", 900 → "15 minutes", 5400 → "1 hour 30 minutes".

const UNITS: ReadonlyArray<readonly [string, number]> = [
  ['hour', 3600],
  ['minute', 60],
  ['second', 1],
];

export function formatDuration(totalSeconds: number): string {
  let rest = Math.max(0, Math.round(totalSeconds));
  if (rest === 0) return '0 seconds';
  const parts: string[] = [];
  for (const [unit, size] of UNITS) {
    const n = Math.floor(rest / size);
    rest -= n * size;
    if (n > 0) parts.push(`${n} ${unit}${n === 1 ? '' : 's'}`);
  }
  return parts.join(' ');
}
