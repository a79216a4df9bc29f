import { writeFileSync } from 'node:fs';
import { PNG } from 'pngjs';

// A small line chart for the soak bench: every series normalised to its own maximum (so RSS in MB
// and event-loop delay in ms share one plot), one colour each, on a light grid. No text: the
// legend (colour → series, with its range) is printed beside the table, where it can be read.

export const PALETTE: Array<[number, number, number]> = [
  [214, 39, 40],
  [31, 119, 180],
  [44, 160, 44],
  [255, 127, 14],
  [148, 103, 189],
  [23, 190, 207],
];

export function writeChart(path: string, series: number[][], width = 720, height = 300): void {
  const png = new PNG({ width, height });
  png.data.fill(255);
  const set = (x: number, y: number, [r, g, b]: [number, number, number]) => {
    if (x < 0 || y < 0 || x >= width || y >= height) return;
    const i = (y * width + x) * 4;
    png.data[i] = r;
    png.data[i + 1] = g;
    png.data[i + 2] = b;
    png.data[i + 3] = 255;
  };
  const pad = 10;
  for (let k = 0; k <= 4; k++) {
    const y = pad + Math.round(((height - 2 * pad) * k) / 4);
    for (let x = pad; x < width - pad; x++) set(x, y, [225, 225, 225]);
  }
  series.forEach((values, s) => {
    const max = Math.max(...values, 1e-9);
    const point = (i: number): [number, number] => [
      pad + Math.round(((width - 2 * pad) * i) / Math.max(1, values.length - 1)),
      height - pad - Math.round(((height - 2 * pad) * Math.max(0, values[i]!)) / max),
    ];
    for (let i = 1; i < values.length; i++) line(point(i - 1), point(i), (x, y) => set(x, y, PALETTE[s % PALETTE.length]!));
  });
  writeFileSync(path, PNG.sync.write(png));
}

/** Bresenham: every pixel between a and b (two pixels thick, to be seen). */
function line([x0, y0]: [number, number], [x1, y1]: [number, number], plot: (x: number, y: number) => void): void {
  const dx = Math.abs(x1 - x0);
  const dy = -Math.abs(y1 - y0);
  const sx = x0 < x1 ? 1 : -1;
  const sy = y0 < y1 ? 1 : -1;
  let err = dx + dy;
  for (;;) {
    plot(x0, y0);
    plot(x0, y0 + 1);
    if (x0 === x1 && y0 === y1) return;
    const e2 = 2 * err;
    if (e2 >= dy) (err += dy), (x0 += sx);
    if (e2 <= dx) (err += dx), (y0 += sy);
  }
}
