/**
 * Remote `$ref`s: refused unless the user named the host (`--allow-ref-host HOST`). Even then the
 * host must resolve only to public addresses (no loopback, private, link-local, unspecified,
 * multicast or IPv4-mapped/translated forms of them), the connection goes to the address that was
 * checked (no second lookup to rebind), redirects are refused (undici's request follows none), and the body is read up to the
 * spec file cap within a time limit.
 */
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { Agent, request } from 'undici';
import { VapcError } from '../errors.js';
import { clip, printable } from '../results/printable.js';

const REMOTE_TIMEOUT_MS = 10_000;

/** A `$ref` or file as it may appear in a message: printable, one line, at most 200 characters. */
export const shown = (text: string): string => clip(printable(text), 200);

/** The refusal of a `$ref`: names the string as written, never what it points at. */
export const refused = (ref: string, why: string): VapcError =>
  new VapcError('E_SPEC_REFUSED', `$ref "${shown(ref)}" refused: ${why}`);

const NOT_PUBLIC = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  NOT_PUBLIC.addSubnet(net, prefix, 'ipv4');
// IPv4-mapped addresses (::ffff:a.b.c.d) are checked as the IPv4 address they carry (below):
// BlockList would also match every IPv4 address against a ::ffff:0:0/96 rule.
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  NOT_PUBLIC.addSubnet(net, prefix, 'ipv6');

/** True for an address a spec may make vapc connect to: a public unicast one. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  if (family === 6) {
    // The URL parser writes any IPv6 form in one canonical way: ::ffff:7f00:1 for ::ffff:127.0.0.1.
    const canonical = new URL(`http://[${address}]/`).hostname.slice(1, -1);
    const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(canonical);
    if (mapped) {
      const [hi, lo] = [parseInt(mapped[1]!, 16), parseInt(mapped[2]!, 16)];
      return isPublicAddress(`${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`);
    }
    return !NOT_PUBLIC.check(canonical, 'ipv6');
  }
  return !NOT_PUBLIC.check(address, 'ipv4');
}

/** A host as the URL parser writes it (lower case, IPv6 canonical, no brackets). */
function canonicalHost(host: string): string {
  try {
    return new URL(`http://${isIP(host) === 6 ? `[${host}]` : host}/`).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return host.toLowerCase();
  }
}

/** Fetches an allowed remote `$ref` (see the module comment); `ref` is the string as written. */
export async function fetchRef(
  ref: string,
  url: string,
  allowedHosts: readonly string[],
  maxBytes: number,
): Promise<string> {
  const parsed = new URL(url);
  const host = parsed.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (!allowedHosts.map(canonicalHost).includes(host)) {
    throw refused(
      ref,
      allowedHosts.length === 0
        ? 'vapc resolves no network $ref (--allow-ref-host HOST allows one host)'
        : 'its host is not one --allow-ref-host names',
    );
  }
  let addresses: Array<{ address: string; family: number }>;
  try {
    addresses = isIP(host)
      ? [{ address: host, family: isIP(host) }]
      : await lookup(host, { all: true, verbatim: true });
  } catch {
    throw refused(ref, 'its host does not resolve');
  }
  const first = addresses[0];
  if (!first || addresses.some((a) => !isPublicAddress(a.address)))
    throw refused(ref, 'its host resolves to a loopback, private or otherwise non-public address');
  const agent = new Agent({
    connect: {
      timeout: REMOTE_TIMEOUT_MS,
      lookup: (_h: string, _o: unknown, cb: (e: Error | null, a: string, f: number) => void) =>
        cb(null, first.address, first.family),
    },
  });
  try {
    const response = await request(parsed, {
      dispatcher: agent,
      headersTimeout: REMOTE_TIMEOUT_MS,
      bodyTimeout: REMOTE_TIMEOUT_MS,
    });
    if (response.statusCode !== 200) {
      await response.body.dump();
      throw refused(
        ref,
        `the host answered ${response.statusCode}${response.statusCode >= 300 && response.statusCode < 400 ? ' (redirects are not followed)' : ''}`,
      );
    }
    const chunks: Buffer[] = [];
    let length = 0;
    for await (const chunk of response.body) {
      length += (chunk as Buffer).length;
      if (length > maxBytes) {
        response.body.destroy();
        throw refused(ref, `more than the ${maxBytes} bytes a spec file may have`);
      }
      chunks.push(chunk as Buffer);
    }
    return Buffer.concat(chunks).toString('utf8');
  } catch (error) {
    if (error instanceof VapcError) throw error;
    throw refused(ref, `cannot fetch it (${shown((error as { code?: string }).code ?? 'network error')})`);
  } finally {
    await agent.close().catch(() => undefined);
  }
}
