// Client addresses: the form they are logged and forwarded in, and the budget a rate limit counts
// them under. One IPv6 client holds a whole /64 (SLAAC, privacy addresses), so every address of a
// /64 shares one budget; an IPv4 address is its own.
import { isIP } from 'node:net';

/**
 * A valid address in its canonical form (lower case, IPv6 compressed, an IPv4-mapped IPv6 address
 * as the IPv4 it is); undefined for anything that is not an address.
 */
export function canonicalAddress(value: string | undefined): string | undefined {
  if (!value) return undefined;
  const trimmed = value.trim().replace(/^\[|\]$/g, '');
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(trimmed);
  if (mapped && isIP(mapped[1]) === 4) return mapped[1];
  const version = isIP(trimmed);
  if (version === 4) return trimmed;
  if (version !== 6) return undefined;
  return compressIpv6(expandIpv6(trimmed));
}

/** The key an address's rate-limit budgets are counted under: an IPv4 address itself, an IPv6 address's /64. */
export function addressBudget(address: string): string {
  if (isIP(address) !== 6) return address;
  return `${expandIpv6(address).slice(0, 4).map((h) => h.replace(/^0+(?=.)/, '')).join(':')}::/64`;
}

/** The eight hextets of an IPv6 address (an embedded IPv4 tail converted). */
function expandIpv6(address: string): string[] {
  let text = address.toLowerCase();
  const tail = /(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (tail) {
    const [a, b, c, d] = tail.slice(1).map(Number);
    text = `${text.slice(0, tail.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, rest] = text.split('::');
  const left = head ? head.split(':') : [];
  const right = rest === undefined ? [] : rest ? rest.split(':') : [];
  const fill = rest === undefined ? [] : Array(8 - left.length - right.length).fill('0');
  return [...left, ...fill, ...right].map((h) => h.padStart(4, '0'));
}

/** RFC 5952: leading zeros dropped, the longest run of two or more zero hextets as `::`. */
function compressIpv6(hextets: string[]): string {
  const short = hextets.map((h) => h.replace(/^0+(?=.)/, ''));
  let best = { start: -1, length: 0 };
  for (let i = 0; i < 8; ) {
    if (short[i] !== '0') {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && short[j] === '0') j++;
    if (j - i > best.length && j - i >= 2) best = { start: i, length: j - i };
    i = j;
  }
  if (best.start < 0) return short.join(':');
  return `${short.slice(0, best.start).join(':')}::${short.slice(best.start + best.length).join(':')}`;
}
