// freePort's port is one a server can take later, outside the range the system hands outgoing
// connections (ports.ts says why).
import fs from 'node:fs';
import net from 'node:net';
import { freePort, isFree } from '../src/ports';

const ephemeralLow = fs.existsSync('/proc/sys/net/ipv4/ip_local_port_range') ? Number(fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').split(/\s+/)[0]) : 32_768;

describe('freePort', () => {
  it('answers loopback ports below the outgoing connections’ range, on which a server then listens', async () => {
    for (let i = 0; i < 20; i++) {
      const port = await freePort();
      expect(port).toBeGreaterThanOrEqual(10_000);
      expect(port).toBeLessThan(ephemeralLow);
      const server = net.createServer();
      await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', resolve));
      expect(await isFree(port)).toBe(false);
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
