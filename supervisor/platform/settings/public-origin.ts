import { isIP } from 'node:net';

// Which requests reach the gateway, and under which name. The gateway binds loopback only, so a
// caller on the internet always arrives through a tunnel or reverse proxy that forwards to it. An
// operator names the public URL(s) that forwarder serves (HERMES_MCP_PUBLIC_URL); requests whose
// Host or Origin is one of those names are accepted beside the loopback names, and every other
// name is still refused (DNS-rebinding protection). X-Forwarded-* headers are believed only from a
// loopback peer, the forwarder itself.

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

export function isLoopbackName(hostname: string): boolean {
  return LOOPBACK_NAMES.has(hostname) || /^127(\.\d{1,3}){3}$/.test(hostname);
}

/** A socket address on loopback (IPv4 127/8, ::1, or 127/8 mapped into IPv6). */
export function isLoopbackPeer(address: string | undefined): boolean {
  if (!address || isIP(address) === 0) return false;
  return address === '::1' || /^(::ffff:)?127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(address);
}

/**
 * HERMES_MCP_PUBLIC_URL: one https origin or a comma list. Each must be `https://host[:port]` with
 * no path beyond `/`, no query, fragment or user info: the gateway serves `/mcp` at the root of the
 * name, and the OAuth issuer and resource identifiers are derived from it. Throws a message naming
 * what is wrong (startup refuses a malformed value).
 */
export function parsePublicUrls(text: string | undefined): URL[] {
  if (text === undefined || text.trim() === '') return [];
  const urls = text.split(',').map((s) => s.trim()).filter(Boolean).map((raw) => {
    const url = URL.parse(raw);
    const why = !url
      ? 'is not a URL'
      : url.protocol !== 'https:'
        ? 'must use https (the tunnel or proxy terminates TLS; ChatGPT only connects over https)'
        : url.username || url.password
          ? 'must not carry user info'
          : url.search || url.hash || raw.includes('#') || raw.includes('?')
            ? 'must not carry a query or fragment'
            : url.pathname !== '/'
              ? 'must be an origin without a path (the gateway serves /mcp at its root)'
              : isLoopbackName(url.hostname)
                ? 'must be the public name, not a loopback name'
                : undefined;
    if (why) throw new Error(`HERMES_MCP_PUBLIC_URL: ${JSON.stringify(raw)} ${why}; expected e.g. https://hermes.example.ts.net`);
    return new URL(url!.origin);
  });
  return urls;
}

/** The lower-case hostname of a Host / X-Forwarded-Host value (port dropped, IPv6 kept in brackets), or undefined. */
export function hostnameOf(value: string | null | undefined): string | undefined {
  if (!value) return undefined;
  const url = URL.parse(`http://${value.trim()}`);
  if (!url || url.username || url.password || url.pathname !== '/' || url.search || url.hash) return undefined;
  return url.hostname.toLowerCase();
}

/** What the edge concluded about one request's name. */
export type OriginVerdict =
  | { ok: false; status: 403; message: string }
  | {
      ok: true;
      /** Loopback Host, no forwarding header: the operator on this machine (may see /readyz details). */
      local: boolean;
      /** The public URL this request was addressed to; the first one when the forwarder rewrote Host to loopback. */
      publicUrl: URL | undefined;
    };

export interface RequestNames {
  host: string | undefined;
  origin: string | undefined;
  forwardedHost: string | undefined;
  forwardedProto: string | undefined;
  /** Any of X-Forwarded-For / -Host / -Proto or Forwarded was present. */
  forwarded: boolean;
  peer: string | undefined;
}

export class PublicOrigin {
  private readonly byHost: Map<string, URL>;

  constructor(
    readonly urls: readonly URL[],
    /** Extra browser origins (full https origins) accepted in Origin, e.g. https://chatgpt.com. */
    private readonly allowedOrigins: readonly string[] = [],
  ) {
    this.byHost = new Map(urls.map((u) => [u.hostname.toLowerCase(), u]));
  }

  get configured(): boolean {
    return this.urls.length > 0;
  }

  /** The public URL for a hostname, if it is one of ours. */
  urlFor(hostname: string | undefined): URL | undefined {
    return hostname === undefined ? undefined : this.byHost.get(hostname);
  }

  /**
   * Host must be loopback or public; Origin (when a browser sends one) likewise; forwarding headers
   * from anything but a loopback peer are refused outright (a request claiming to have been
   * forwarded must have come through the local forwarder), and a forwarded Host must be public.
   */
  judge(names: RequestNames): OriginVerdict {
    const refuse = (message: string): OriginVerdict => ({ ok: false, status: 403, message });
    if (names.forwarded && !isLoopbackPeer(names.peer)) return refuse('Forbidden: X-Forwarded-* headers are accepted only from the local tunnel or proxy');
    const host = hostnameOf(names.host);
    if (host === undefined) return refuse('Invalid Host header: missing or malformed');
    const hostPublic = this.urlFor(host);
    if (!hostPublic && !isLoopbackName(host)) return refuse(`Invalid Host: ${host} is neither a loopback name nor a configured HERMES_MCP_PUBLIC_URL`);
    let publicUrl = hostPublic;
    if (names.forwardedHost !== undefined) {
      const fwd = hostnameOf(names.forwardedHost.split(',')[0]);
      const fwdPublic = this.urlFor(fwd);
      if (!fwdPublic && !(fwd !== undefined && isLoopbackName(fwd))) return refuse(`Invalid X-Forwarded-Host: ${fwd ?? 'malformed'} is not a configured HERMES_MCP_PUBLIC_URL`);
      publicUrl = fwdPublic ?? publicUrl;
    }
    if (names.origin !== undefined) {
      const origin = URL.parse(names.origin);
      const originHost = origin?.hostname.toLowerCase();
      const known = originHost !== undefined && (this.urlFor(originHost) !== undefined || isLoopbackName(originHost) || this.allowedOrigins.includes(origin!.origin));
      if (!known) return refuse(`Invalid Origin: ${names.origin} is not a loopback, public or allowed origin (HERMES_MCP_ALLOWED_ORIGINS)`);
    }
    const local = hostPublic === undefined && !names.forwarded;
    return { ok: true, local, publicUrl: publicUrl ?? (this.urls[0] as URL | undefined) };
  }
}
