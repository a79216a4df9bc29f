import { BlockList, isIP } from 'node:net';
import { lookup } from 'node:dns/promises';
import { ErrorCode, GatewayError } from '../../../shared/errors.js';
import { containsKnownTokenFormat } from '../../../shared/secret-detect.js';

// Which pages browser_navigate may open, checked before any request reaches Camofox. The rules are
// Hermes' navigation guards (tools/browser_tool.py browser_navigate, tools/url_safety.py) for a
// browser that is not the caller's own machine: Hermes skips the private-address check for
// Camofox because there the agent already has a shell on the same host, but this gateway's caller
// is remote, so it applies Hermes' non-local rules:
// - http and https only (no file:, javascript:, data:, about:, chrome:);
// - never a URL carrying what looks like an API key, nor a credential-named query parameter;
// - never cloud metadata (169.254.0.0/16, 100.100.100.200, fd00:ec2::254, metadata.google.internal),
//   whatever the configuration;
// - no loopback, private, link-local, CGNAT, reserved or multicast address, including names that
//   resolve to one, unless HERMES_ALLOW_PRIVATE_URLS / security.allow_private_urls /
//   browser.allow_private_urls allows them (a name that does not resolve is refused then too,
//   as Hermes fails closed).
// The browser resolves names again itself, so DNS rebinding can still slip past; the final URL
// Camofox reports after a navigation is checked again (tools.ts).

const METADATA_HOSTS = new Set(['metadata.google.internal', 'metadata.goog']);

const alwaysBlocked = new BlockList();
alwaysBlocked.addSubnet('169.254.0.0', 16, 'ipv4'); // link-local, home of every cloud's metadata service
for (const ip of ['169.254.169.254', '169.254.170.2', '169.254.169.253', '100.100.100.200']) alwaysBlocked.addAddress(ip, 'ipv4');
alwaysBlocked.addAddress('fd00:ec2::254', 'ipv6');

const privateRanges = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24], ['203.0.113.0', 24],
  ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) privateRanges.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['2001:db8::', 32], ['100::', 64]] as const) {
  privateRanges.addSubnet(net, bits, 'ipv6');
}

/** Hermes' credential-named query parameters (tools/url_safety.py), matched case-insensitively. */
const SENSITIVE_PARAMS = new Set([
  'access_token', 'api_key', 'apikey', 'auth_token', 'authorization', 'awsaccesskeyid', 'client_secret', 'credential', 'credentials',
  'jwt', 'password', 'passwd', 'secret', 'session_id', 'signature', 'token', 'x_amz_security_token', 'x_amz_signature',
  'x-amz-security-token', 'x-amz-signature',
]);

const blocked = (message: string, reason: string) => new GatewayError(ErrorCode.BROWSER_URL_BLOCKED, message, { reason });

/** An IPv4-mapped IPv6 address (`::ffff:7f00:1`, `::ffff:127.0.0.1`) as its IPv4 address. */
function unmapped(ip: string): { address: string; family: 'ipv4' | 'ipv6' } {
  const dotted = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (dotted) return { address: dotted[1]!, family: 'ipv4' };
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(ip);
  if (hex) {
    const hi = parseInt(hex[1]!, 16);
    const lo = parseInt(hex[2]!, 16);
    return { address: `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`, family: 'ipv4' };
  }
  return { address: ip, family: isIP(ip) === 4 ? 'ipv4' : 'ipv6' };
}

/** 'metadata' (always refused), 'private' (refused unless allowed) or null for an IP address. */
export function classifyAddress(ip: string): 'metadata' | 'private' | null {
  const { address, family } = unmapped(ip.replace(/^\[|\]$/g, '').split('%')[0]!);
  if (alwaysBlocked.check(address, family)) return 'metadata';
  return privateRanges.check(address, family) ? 'private' : null;
}

export interface UrlPolicy {
  allowPrivateUrls: boolean;
  urlMaxChars: number;
  /** Bounds the DNS lookup of a host name. */
  lookupTimeoutMs: number;
}

async function resolveAll(host: string, timeoutMs: number): Promise<string[] | undefined> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const answers = await Promise.race([
      lookup(host, { all: true, verbatim: true }),
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('timeout')), timeoutMs))),
    ]);
    return answers.map((a) => a.address);
  } catch {
    return undefined;
  } finally {
    if (timer) clearTimeout(timer);
  }
}

/** Refuses a host that is (or resolves to) cloud metadata, or a private address unless allowed. */
async function checkHost(hostname: string, policy: UrlPolicy): Promise<void> {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase().replace(/\.$/, '');
  const refuse = (kind: 'metadata' | 'private', shown: string) => {
    if (kind === 'metadata') throw blocked('Blocked: URL targets a cloud metadata endpoint', 'cloud_metadata');
    if (!policy.allowPrivateUrls) {
      throw blocked(
        `${shown} is a loopback, private or internal address, which the browser does not open unless the host allows it (HERMES_ALLOW_PRIVATE_URLS=true or security.allow_private_urls: true in Hermes' config.yaml)`,
        'private_address',
      );
    }
  };
  if (METADATA_HOSTS.has(host)) refuse('metadata', host);
  if (isIP(host)) {
    const kind = classifyAddress(host);
    if (kind) refuse(kind, host);
    return;
  }
  if (host === 'localhost' || host.endsWith('.localhost')) refuse('private', host);
  const addresses = await resolveAll(host, policy.lookupTimeoutMs);
  if (!addresses) {
    // Hermes' is_safe_url fails closed on a DNS failure; with private addresses allowed only the
    // metadata floor is checked, and that one lets the browser report the DNS error itself.
    if (!policy.allowPrivateUrls) throw blocked(`${host} could not be resolved, so it cannot be checked against the private-address rule`, 'unresolvable');
    return;
  }
  for (const address of addresses) {
    const kind = classifyAddress(address);
    if (kind) refuse(kind, `${host} (${address})`);
  }
}

/** The URL to send to Camofox, or a stable error. `reportedByBrowser`: a URL Camofox landed on (only the host is checked). */
export async function checkPageUrl(raw: string, policy: UrlPolicy, reportedByBrowser = false): Promise<string> {
  if (!reportedByBrowser && raw.length > policy.urlMaxChars) {
    throw new GatewayError(ErrorCode.BROWSER_INPUT_TOO_LARGE, `url is ${raw.length} characters; the limit is ${policy.urlMaxChars} (browserUrlMaxChars)`);
  }
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new GatewayError(ErrorCode.BROWSER_URL_INVALID, `not a valid absolute URL: ${JSON.stringify(raw.slice(0, 200))}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new GatewayError(ErrorCode.BROWSER_URL_INVALID, `only http and https pages can be opened, not ${url.protocol} URLs`, { scheme: url.protocol.replace(/:$/, '') });
  }
  if (!reportedByBrowser) {
    let decoded = url.href;
    try {
      decoded = decodeURIComponent(url.href);
    } catch {
      // keep the encoded form
    }
    if (containsKnownTokenFormat(decoded)) throw blocked('Blocked: URL contains what appears to be an API key or token. Secrets must not be sent in URLs.', 'secret_in_url');
    for (const [key, value] of url.searchParams) {
      if (value !== '' && SENSITIVE_PARAMS.has(key.toLowerCase())) {
        throw blocked(`the URL carries a credential-named query parameter (${key}); the browser does not send credentials to a page`, 'credential_parameter');
      }
    }
  }
  await checkHost(url.hostname, policy);
  return url.href;
}
