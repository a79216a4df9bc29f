import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';
import { isIP } from 'node:net';

// The client address an edge keys rate limits and audit lines on. These listeners only ever bind
// loopback, so a remote client always arrives through a local tunnel or reverse proxy: then the
// socket peer is loopback and the proxy's X-Forwarded-For carries the real client. Its LAST entry
// is taken, the one the nearest proxy appended itself (earlier entries come from the client and
// can be forged). A direct local client without the header is keyed on its socket address.

const LOOPBACK = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|::1|::ffff:127\.\d{1,3}\.\d{1,3}\.\d{1,3})$/;

export function clientIp(c: Context): string {
  let peer = 'unknown';
  try {
    peer = getConnInfo(c).remote.address ?? 'unknown';
  } catch {
    // Not served by @hono/node-server (app.request in-process): no socket to read.
  }
  if (!LOOPBACK.test(peer)) return peer;
  const forwarded = c.req.header('x-forwarded-for');
  const last = forwarded?.split(',').pop()?.trim();
  return last && isIP(last) ? last : peer;
}
