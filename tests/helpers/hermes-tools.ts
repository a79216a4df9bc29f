import { randomBytes } from 'node:crypto';
import { crc32, deflateSync } from 'node:zlib';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { numericDirs, processStartTime } from '../../shared/proc.js';
import { packageRoot } from '../../shared/package-root.js';
import { cmdline } from './procfs.js';

// Hermes' tool server for tests: the stand-in (tests/fixtures/hermes-tools-standin.ts), reached
// through the same configuration a real Hermes uses — HERMES_MCP_HERMES_TOOLS_COMMAND, or a fake
// standard install under $HERMES_HOME/hermes-agent whose venv python runs the stand-in. It runs in
// the Hermes tools worker's PID namespace, so the host's view of it is found by its marker.

const STAND_IN = join(packageRoot(), 'dist', 'tests', 'fixtures', 'hermes-tools-standin.js');

export interface ToolServerStandIn {
  /** Its argv (stand-in flags included), for HERMES_MCP_HERMES_TOOLS_COMMAND. */
  command: string;
  /** Every start, in order. */
  starts(): Array<{ pid: number; at: number; cwd: string; argv: string[]; env: Record<string, string | undefined>; envNames: string[] }>;
  /** Every tools/call it received. */
  calls(): Array<{ name: string; arguments: Record<string, unknown> }>;
  /** Every tools/call its client cancelled (MCP notifications/cancelled), with when. */
  cancels(): Array<{ name: string; arguments: Record<string, unknown>; at: number }>;
  /** The stand-in processes alive on the host now. */
  live(): number[];
}

export function toolServerStandIn(recordDir: string, ...flags: string[]): ToolServerStandIn {
  mkdirSync(recordDir, { recursive: true });
  const marker = `hermes-tools-standin-${randomBytes(6).toString('hex')}`;
  const lines = (file: string) => (existsSync(join(recordDir, file)) ? readFileSync(join(recordDir, file), 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l)) : []);
  return {
    command: [process.execPath, STAND_IN, '--record', recordDir, '--marker', marker, ...flags].join(' '),
    starts: () => lines('starts.jsonl'),
    calls: () => lines('calls.jsonl'),
    cancels: () => lines('cancels.jsonl'),
    live: () => numericDirs('/proc').filter((pid) => pid !== process.pid && cmdline(pid).includes(marker) && processStartTime(pid) !== undefined),
  };
}

/**
 * A standard Hermes install's layout under `home` ($HERMES_HOME/hermes-agent with venv/bin/python),
 * whose python is a script that runs the stand-in with the arguments it was given.
 */
export function fakeHermesInstall(home: string, standIn: ToolServerStandIn): string {
  const source = join(home, 'hermes-agent');
  mkdirSync(join(source, 'venv', 'bin'), { recursive: true });
  const python = join(source, 'venv', 'bin', 'python');
  writeFileSync(python, `#!/bin/sh\nexec ${standIn.command} "$@"\n`);
  chmodSync(python, 0o755);
  return source;
}

/** /readyz (status code, and the two components of Hermes' tool server). */
export async function toolServerReadiness(url: string) {
  const res = await fetch(`${url}/readyz`);
  type Component = { ready: boolean; status: string; reason?: string; action?: string; details?: Record<string, unknown> };
  const body = (await res.json()) as { components: Record<string, Component>; reasons: Array<{ component: string; reason: string }> };
  return { code: res.status, hermesTools: body.components.hermes_tools!, web: body.components.web_provider!, reasons: body.reasons };
}

/** A PNG's signature and IHDR chunk with this size: all the stand-in's vision_analyze reads of an image. */
export function pngHeader(width: number, height: number): Buffer {
  const bytes = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
  bytes.writeUInt32BE(width, 16);
  bytes.writeUInt32BE(height, 20);
  return bytes;
}

/**
 * A complete, decodable PNG of `width` x `height` RGB pixels (each pixel's colour from its
 * position, so a crop differs from the whole): for readers that decode the image, as Hermes 0.22
 * does before it sends one to a vision model (tools/vision_tools_image_prep.py, Pillow), where
 * pngHeader's header-only bytes are "not a recognized image".
 */
export function pngImage(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const framed = Buffer.alloc(body.length + 8);
    framed.writeUInt32BE(data.length, 0);
    body.copy(framed, 4);
    framed.writeUInt32BE(crc32(body), body.length + 4);
    return framed;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit RGB, deflate, no filter method variants, no interlace
  const rows = Buffer.alloc((width * 3 + 1) * height);
  for (let y = 0; y < height; y++) {
    const row = y * (width * 3 + 1); // each row starts with filter type 0 (none)
    for (let x = 0; x < width; x++) rows.set([(x * 255) / Math.max(1, width - 1), (y * 255) / Math.max(1, height - 1), 128], row + 1 + x * 3);
  }
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', header), chunk('IDAT', deflateSync(rows)), chunk('IEND', Buffer.alloc(0))]);
}

/** A PNG's width and height from its IHDR chunk. */
export function pngSize(png: Buffer): { width: number; height: number } {
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}
