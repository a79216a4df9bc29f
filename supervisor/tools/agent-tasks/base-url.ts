import { BlockList, isIP } from 'node:net';

// Where a Hermes agent may live: loopback (127.0.0.0/8, ::1) or the Tailscale ranges
// (100.64.0.0/10 CGNAT, fd7a:115c:a1e0::/48), by literal address only: a host name would need a
// DNS lookup that could answer anything. The path is empty or one Hermes multiplexing-gateway
// profile, `/p/<profile>`; `/v1/...` and `/health` are appended to it.

const allowed = new BlockList();
allowed.addSubnet('127.0.0.0', 8, 'ipv4');
allowed.addAddress('::1', 'ipv6');
allowed.addSubnet('100.64.0.0', 10, 'ipv4');
allowed.addSubnet('fd7a:115c:a1e0::', 48, 'ipv6');

const PROFILE_PATH = /^\/p\/[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Why `text` is not an allowed agent base URL, or undefined when it is. */
export function baseUrlProblem(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `${JSON.stringify(text)} is not a URL`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `${text}: only http and https are allowed`;
  if (url.username || url.password || url.search || url.hash) return `${text}: no credentials, query or fragment allowed`;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const family = isIP(host);
  if (family === 0) return `${text}: the host must be a literal loopback or Tailscale address, not a name`;
  if (!allowed.check(host, family === 4 ? 'ipv4' : 'ipv6')) return `${text}: ${host} is neither loopback nor a Tailscale address (100.64.0.0/10, fd7a:115c:a1e0::/48)`;
  const path = url.pathname.replace(/\/$/, '');
  if (path !== '' && !PROFILE_PATH.test(path)) return `${text}: the path must be empty or /p/<profile>`;
  return undefined;
}

/** The profile of a `/p/<profile>` base URL, or undefined for a listener's own root. */
export function profileOf(text: string): string | undefined {
  return /^\/p\/([^/]+)\/?$/.exec(new URL(text).pathname)?.[1];
}

/** The base URL without a trailing slash, for appending `/v1/...`. */
export function normalizeBaseUrl(text: string): string {
  return text.replace(/\/+$/, '');
}
