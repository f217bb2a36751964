// A loopback port for a server a test starts where its address must be known first (an issuer, a
// redirect URI, a node that restarts on the same port).
import fs from 'node:fs';
import net from 'node:net';

/** Whether a server could listen on loopback `port` now (nothing listens there, no socket holds it). */
export function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** The lowest port the system gives an outgoing connection (Linux's ip_local_port_range; 32768 elsewhere). */
function ephemeralLow(): number {
  try {
    const low = Number(fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 11_000 ? low : 32_768;
  } catch {
    return 32_768;
  }
}

/**
 * A loopback port free now, drawn below the system's range for outgoing connections: the server is
 * started on it later (the pages' gateway after an identity provider and a stack have started), and
 * a port from that range could meanwhile be taken as the local port of any connection the run opens
 * (the pages' file failed so once, EADDRINUSE on 127.0.0.1:37765, 2026-11-30). The system's own
 * choice (port 0) is from that very range; it is the fallback only.
 */
export async function freePort(): Promise<number> {
  const low = ephemeralLow();
  for (let tries = 0; tries < 100; tries++) {
    const port = 10_000 + Math.floor(Math.random() * (low - 10_000));
    if (await isFree(port)) return port;
  }
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
