// A loopback port for a server a test starts where its address must be known first (an issuer, a
// redirect URI, a node that restarts on the same port).
import net from 'node:net';

/** A loopback port free now (the system's choice). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
