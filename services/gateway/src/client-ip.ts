// The client's address, as the request log records it and the services are told it: the connection's
// own, or with TRUST_PROXY the one the trusted proxies forwarded (express's `trust proxy` semantics).
import type http from 'node:http';
import type { Socket } from 'node:net';
import proxyaddr from 'proxy-addr';
import { canonicalAddress, type TrustProxy } from '@acct/shared';

export type Trust = Parameters<typeof proxyaddr>[1];

/** express's `trust proxy` semantics: false, true, a hop count, or a list of addresses/subnets. */
export function compileTrust(value: TrustProxy): Trust {
  if (value === true) return () => true;
  if (value === false) return () => false;
  if (typeof value === 'number') return (_addr: string, i: number) => i < value;
  return proxyaddr.compile(value);
}

/**
 * Each connection's own address, canonical, worked out once: a keep-alive connection asks for it on
 * every request, and a request without X-Forwarded-For is from it whatever the trust list says.
 */
const connectionAddresses = new WeakMap<Socket, string>();

/** The client's canonical address; 'unknown' when the connection has none left (closed). */
export function clientAddress(req: http.IncomingMessage, trust: Trust): string {
  if (req.headers['x-forwarded-for'] === undefined) {
    const socket = req.socket;
    let address = connectionAddresses.get(socket);
    if (address === undefined) {
      address = canonicalAddress(socket.remoteAddress);
      if (address === undefined) return 'unknown';
      connectionAddresses.set(socket, address);
    }
    return address;
  }
  // A forwarded value that is not an address is ignored: the connection's own address stands.
  return canonicalAddress(proxyaddr(req, trust)) ?? canonicalAddress(req.socket.remoteAddress) ?? 'unknown';
}
