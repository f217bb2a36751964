// A store's failure is told from the request's: what ioredis answers when a connection closes under
// a pipeline it had only partly answered is an outage (503 with Retry-After), not a fault (500).
import net from 'node:net';
import Redis from 'ioredis';
import { isDependencyUnavailable } from '@acct/shared';

describe('isDependencyUnavailable', () => {
  it('when a Redis connection closes after answering part of a pipeline, then the rest fails as the dependency\'s failure', async () => {
    // A server that answers the first command it is sent and then drops the connection.
    let closing = false;
    const sockets = new Set<net.Socket>();
    const server = net.createServer((socket) => {
      if (closing) return void socket.destroy();
      sockets.add(socket);
      socket.once('data', () => {
        socket.write('$-1\r\n');
        socket.destroy();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const client = new Redis({ host: '127.0.0.1', port: (server.address() as net.AddressInfo).port, enableReadyCheck: false, disableClientInfo: true, retryStrategy: () => null, lazyConnect: true });
    client.on('error', () => undefined);
    try {
      await client.connect();
      const results = await client.pipeline().get('first').get('second').exec();
      const failure = results?.[1]?.[0];
      expect(failure).toBeInstanceOf(Error);
      expect((failure as Error).message).toBe('Command aborted due to connection close');
      expect(isDependencyUnavailable(failure)).toBe(true);
    } finally {
      closing = true;
      // The server closed the connection, so the client has ended: disconnect() now would arm
      // ioredis' 2 s timer for a socket that never closes again, which holds the jest worker open.
      if (client.status !== 'end') client.disconnect();
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('when an error is the request\'s own, then it is not', () => {
    expect(isDependencyUnavailable(new Error('Cannot read properties of undefined'))).toBe(false);
    expect(isDependencyUnavailable(Object.assign(new Error('Command aborted by the caller'), { name: 'AbortError' }))).toBe(false);
    expect(isDependencyUnavailable('Command aborted due to connection close')).toBe(false);
  });
});
