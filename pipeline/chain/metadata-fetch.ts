/**
 * Fetches token metadata documents, which anyone who deploys a contract controls: an attack
 * surface (SSRF, memory, time). The rules, all enforced here:
 *
 * - only http:// and https:// URLs, and ipfs:// through the configured gateway
 *   (data:application/json URIs are decoded locally, nothing is fetched);
 * - no private, loopback, link-local or otherwise reserved address, whether the URL names
 *   it or DNS resolves to it: the check runs in the socket's own lookup, so the address
 *   checked is the address connected to (no DNS rebinding between check and connect);
 *   METADATA_ALLOW_PRIVATE_NETWORKS exempts given networks, for tests and local development only;
 * - one deadline for the whole fetch, redirects included;
 * - at most METADATA_MAX_BYTES read (announced or not);
 * - redirects followed by hand, at most METADATA_MAX_REDIRECTS, each target checked again;
 * - the body must be a JSON object.
 *
 * Never throws: the outcome says what went wrong, and the mint keeps empty fields.
 */
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { Config } from '../../shared/config.ts';

export type MetadataSettings = Pick<
  Config,
  'METADATA_IPFS_GATEWAY' | 'METADATA_TIMEOUT_MS' | 'METADATA_MAX_BYTES' | 'METADATA_MAX_REDIRECTS' | 'METADATA_ALLOW_PRIVATE_NETWORKS'
>;

export type MetadataOutcome =
  | { status: 'ok'; document: Record<string, unknown>; url: string }
  | { status: 'refused' | 'failed' | 'invalid'; reason: string };

class Refused extends Error {}
class Failed extends Error {}

const BLOCKED = new net.BlockList();
for (const [prefix, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) BLOCKED.addSubnet(prefix, bits, 'ipv4');
for (const [prefix, bits] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
  ['2001:db8::', 32],
  ['100::', 64],
] as const) BLOCKED.addSubnet(prefix, bits, 'ipv6');

/** True for addresses a metadata fetch must never reach (IPv4-mapped and NAT64 IPv6 checked as IPv4). */
export function isForbiddenAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 4) return BLOCKED.check(address, 'ipv4');
  if (family !== 6) return true;
  const lower = address.toLowerCase();
  const mapped = /^(?:::ffff:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (mapped) return BLOCKED.check(mapped[1]!, 'ipv4');
  const mappedHex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (mappedHex) {
    const n = (parseInt(mappedHex[1]!, 16) << 16) | parseInt(mappedHex[2]!, 16);
    return BLOCKED.check([n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.'), 'ipv4');
  }
  return BLOCKED.check(lower, 'ipv6');
}

/** The http(s) URL a token URI is fetched from, or a refusal. */
export function resolveMetadataUrl(uri: string, gateway: string): URL {
  const trimmed = uri.trim();
  if (/^ipfs:\/\//i.test(trimmed)) {
    const path = trimmed.replace(/^ipfs:\/\//i, '').replace(/^ipfs\//i, '');
    if (path === '' || path.startsWith('/')) throw new Refused('ipfs:// URL without a content id');
    return new URL(path, gateway.endsWith('/') ? gateway : `${gateway}/`);
  }
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    throw new Refused('not a URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Refused(`scheme ${url.protocol} is not allowed (http, https, ipfs only)`);
  if (url.username || url.password) throw new Refused('URLs with credentials are not allowed');
  return url;
}

export async function fetchMetadata(uri: string, settings: MetadataSettings): Promise<MetadataOutcome> {
  const inline = dataJson(uri, settings.METADATA_MAX_BYTES);
  if (inline) return inline;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), settings.METADATA_TIMEOUT_MS);
  try {
    let url = resolveMetadataUrl(uri, settings.METADATA_IPFS_GATEWAY);
    for (let hop = 0; ; hop++) {
      const response = await request(url, settings, controller.signal);
      if (response.redirect === undefined) return parseDocument(response.body, url.toString());
      if (hop >= settings.METADATA_MAX_REDIRECTS) throw new Refused(`more than ${settings.METADATA_MAX_REDIRECTS} redirects`);
      url = resolveMetadataUrl(new URL(response.redirect, url).toString(), settings.METADATA_IPFS_GATEWAY);
    }
  } catch (error) {
    if (error instanceof Refused) return { status: 'refused', reason: error.message };
    if (controller.signal.aborted) return { status: 'failed', reason: `no complete answer within ${settings.METADATA_TIMEOUT_MS} ms` };
    return { status: 'failed', reason: (error as Error).message };
  } finally {
    clearTimeout(timer);
  }
}

function parseDocument(body: Buffer, url: string): MetadataOutcome {
  let document: unknown;
  try {
    document = JSON.parse(body.toString('utf8'));
  } catch {
    return { status: 'invalid', reason: 'the metadata document is not JSON' };
  }
  if (typeof document !== 'object' || document === null || Array.isArray(document)) {
    return { status: 'invalid', reason: 'the metadata document is not a JSON object' };
  }
  return { status: 'ok', document: document as Record<string, unknown>, url };
}

/** data:application/json[;base64],... token URIs (on-chain metadata): decoded, never fetched. */
function dataJson(uri: string, maxBytes: number): MetadataOutcome | undefined {
  const match = /^data:application\/json(;charset=[\w-]+)?(;base64)?,/i.exec(uri.trim());
  if (!match) return undefined;
  const payload = uri.trim().slice(match[0].length);
  if (payload.length > maxBytes * 2) return { status: 'failed', reason: `the metadata document is over ${maxBytes} bytes` };
  let body: Buffer;
  try {
    body = match[2] ? Buffer.from(payload, 'base64') : Buffer.from(decodeURIComponent(payload), 'utf8');
  } catch {
    return { status: 'invalid', reason: 'the data: URI does not decode' };
  }
  if (body.length > maxBytes) return { status: 'failed', reason: `the metadata document is over ${maxBytes} bytes` };
  return parseDocument(body, uri.slice(0, 64));
}

interface Answer {
  body: Buffer;
  redirect?: string;
}

/** The exempt networks of METADATA_ALLOW_PRIVATE_NETWORKS. */
function allowList(cidrs: readonly string[]): net.BlockList {
  const list = new net.BlockList();
  for (const cidr of cidrs) {
    const [prefix, bits] = cidr.split('/') as [string, string];
    list.addSubnet(prefix, Number(bits), net.isIP(prefix) === 6 ? 'ipv6' : 'ipv4');
  }
  return list;
}

function refusedAddress(address: string, allowed: net.BlockList): boolean {
  if (!isForbiddenAddress(address)) return false;
  return !allowed.check(address, net.isIP(address) === 6 ? 'ipv6' : 'ipv4');
}

function guardedLookup(allowed: net.BlockList): net.LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { all: true }, (error, addresses) => {
      if (error) return callback(error, '', 4);
      const list = addresses as dns.LookupAddress[];
      const forbidden = list.find((a) => refusedAddress(a.address, allowed));
      if (forbidden) {
        return callback(new Refused(`${hostname} resolves to the private or reserved address ${forbidden.address}`) as NodeJS.ErrnoException, '', 4);
      }
      const chosen = list[0];
      if (!chosen) return callback(new Failed(`${hostname} does not resolve`) as NodeJS.ErrnoException, '', 4);
      if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, [chosen]);
      return callback(null, chosen.address, chosen.family);
    });
  };
}

function request(url: URL, settings: MetadataSettings, signal: AbortSignal): Promise<Answer> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const allowed = allowList(settings.METADATA_ALLOW_PRIVATE_NETWORKS);
  if (net.isIP(host) && refusedAddress(host, allowed)) {
    return Promise.reject(new Refused(`${host} is a private or reserved address`));
  }
  const client = url.protocol === 'https:' ? https : http;
  return new Promise<Answer>((resolve, reject) => {
    const req = client.request(
      url,
      {
        method: 'GET',
        signal,
        lookup: guardedLookup(allowed),
        headers: { accept: 'application/json', 'user-agent': 'soulgraph-metadata/1' },
        agent: false,
      },
      (res) => {
        const status = res.statusCode ?? 0;
        if ([301, 302, 303, 307, 308].includes(status)) {
          res.resume();
          const location = res.headers.location;
          if (!location) return reject(new Failed(`redirect ${status} without a Location`));
          return resolve({ body: Buffer.alloc(0), redirect: location });
        }
        if (status < 200 || status > 299) {
          res.resume();
          return reject(new Failed(`HTTP ${status}`));
        }
        const announced = Number(res.headers['content-length'] ?? NaN);
        if (announced > settings.METADATA_MAX_BYTES) {
          res.destroy();
          return reject(new Failed(`the metadata document is over ${settings.METADATA_MAX_BYTES} bytes (announced ${announced})`));
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > settings.METADATA_MAX_BYTES) {
            res.destroy();
            reject(new Failed(`the metadata document is over ${settings.METADATA_MAX_BYTES} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        res.on('end', () => resolve({ body: Buffer.concat(chunks) }));
        res.on('error', reject);
      },
    );
    req.on('error', (error) => reject(error instanceof Refused ? error : (error as Error & { cause?: unknown }).cause instanceof Refused ? (error as { cause: Refused }).cause : error));
    req.end();
  });
}

/** The fields an SBT row takes from its metadata document (strings only; anything else is ignored). */
export function sbtFields(document: Record<string, unknown>): { sbtName: string; imageUrl: string } {
  const text = (v: unknown) => (typeof v === 'string' ? v.slice(0, 2048) : '');
  return { sbtName: text(document.name), imageUrl: text(document.image) || text(document.image_url) };
}
