import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { request } from 'node:https';
import { BlockList, isIP } from 'node:net';
import { Readable } from 'node:stream';
import type { ReadableStream } from 'node:stream/web';

// The authorization server's only outgoing request: a Client ID Metadata Document (the client_id is
// an https URL that anyone may name). Checking the URL's text is not enough (any public name can
// resolve to 127.0.0.1 or a private address), so the name is resolved here and the connection is
// made only when every address is public: no loopback, private, link-local, unique-local,
// carrier-grade NAT, multicast or otherwise reserved address, and no IPv4-mapped or NAT64 form of
// one. The connection goes to the address that was checked (the lookup hook hands it to the
// socket), so a second, different DNS answer cannot slip in between.

/** Resolves a name to every address it has (dns.lookup with all: true, or a test's stand-in). */
export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

const NOT_PUBLIC = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24], ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) NOT_PUBLIC.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 127], // :: and ::1
  ['64:ff9b::', 96], // NAT64 (embeds any IPv4 address)
  ['100::', 64], // discard
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const) NOT_PUBLIC.addSubnet(net, prefix, 'ipv6');
// An IPv4-mapped IPv6 address (::ffff:a.b.c.d) is judged by the IPv4 rules: BlockList maps it itself.

/** True for an address a metadata document may be fetched from. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  return !NOT_PUBLIC.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) => dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))));

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A socket `lookup` that refuses a name unless every address it resolves to is public. */
export function guardedLookup(resolve: Resolver): (hostname: string, options: LookupOptions, callback: LookupCallback) => void {
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (addresses) => {
        const bad = addresses.find((a) => !isPublicAddress(a.address));
        if (addresses.length === 0 || bad) {
          const error: NodeJS.ErrnoException = new Error(`${hostname} resolves to ${bad?.address ?? 'no address'}: a client metadata document is never fetched from this machine or a private network`);
          error.code = 'EADDRNOTPUBLIC';
          return callback(error, '', 0);
        }
        if (options.all) return callback(null, addresses);
        return callback(null, addresses[0]!.address, addresses[0]!.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
}

const NULL_BODY_STATUS = new Set([101, 103, 204, 205, 304]);

/**
 * oidc-provider's `fetch` for metadata documents: GET over https through guardedLookup, redirects
 * not followed (oidc-provider asks for `manual` and refuses anything but 200), its abort signal (a
 * timeout) honoured. The body is streamed back for oidc-provider's own size limit.
 */
export function guardedFetch(resolve: Resolver = systemResolver): (url: string | URL | Request, init?: RequestInit) => Promise<Response> {
  return (url, init = {}) =>
    new Promise((ok, fail) => {
      const target = new URL(url instanceof Request ? url.url : url);
      const literal = target.hostname.replace(/^\[|\]$/g, '');
      if (target.protocol !== 'https:') return fail(new Error('a client metadata document is fetched over https only'));
      // An IP literal never goes through lookup: judge it here.
      if (isIP(literal) !== 0 && !isPublicAddress(literal)) return fail(new Error(`${literal} is not a public address`));
      const headers: Record<string, string> = {};
      new Headers(init.headers).forEach((value, key) => (headers[key] = value));
      const req = request(target, { method: 'GET', headers, agent: false, lookup: guardedLookup(resolve), ...(init.signal ? { signal: init.signal } : {}) }, (res) => {
        const responseHeaders = new Headers();
        for (const [key, value] of Object.entries(res.headers)) for (const v of [value ?? []].flat()) responseHeaders.append(key, v);
        const status = res.statusCode ?? 502;
        if (NULL_BODY_STATUS.has(status)) res.resume();
        ok(new Response(NULL_BODY_STATUS.has(status) ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array> as globalThis.ReadableStream<Uint8Array>), { status, headers: responseHeaders }));
      });
      req.on('error', fail);
      req.end();
    });
}
