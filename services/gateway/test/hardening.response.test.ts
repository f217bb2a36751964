// The gateway against slow and crafted requests: secret query keys never logged however they are
// spelled, and a client that stalls its body is cut off with 408.
import http from 'node:http';
import net from 'node:net';
import { closeServer, listen } from '@acct/shared';
import { loggablePath } from '@acct/shared';
import { settle, startGatewayUnderTest, type GatewayUnderTest } from './gateway-under-test';
import { scaled } from '@acct/test-harness/time-scale';

describe('loggablePath', () => {
  it.each([
    ['/x?token=abc', '/x?token=[redacted]'],
    ['/x?TOKEN=abc', '/x?TOKEN=[redacted]'],
    ['/x?newPassword=abc&a=1', '/x?newPassword=[redacted]&a=1'],
    ['/x?NEWPASSWORD=abc', '/x?NEWPASSWORD=[redacted]'],
    ['/x?Code=123456', '/x?Code=[redacted]'],
    ['/x?t%6Fken=abc', '/x?t%6Fken=[redacted]'],
    ['/x?%74%6F%6B%65%6E=abc', '/x?%74%6F%6B%65%6E=[redacted]'],
    ['/x?token[]=abc', '/x?token[]=[redacted]'],
    ['/x?token%5B%5D=abc', '/x?token%5B%5D=[redacted]'],
    ['/x?user[password]=abc', '/x?user[password]=[redacted]'],
    ['/x?challenge_token=abc&platform=linux', '/x?challenge_token=[redacted]&platform=linux'],
    ['/x?%E0%A4%A=1&token=z', '/x?%E0%A4%A=1&token=[redacted]'],
    ['/x?platform=linux', '/x?platform=linux'],
    ['/x?tokens=keep', '/x?tokens=keep'],
    ['/x?a&&token=z&', '/x?a&&token=[redacted]&'],
    ['/x?a=b=token&token', '/x?a=b=token&token'],
    ['/x?platform=linux&code=1', '/x?platform=linux&code=[redacted]'],
    ['/x?', '/x?'],
  ])('%s is logged as %s', (url, logged) => {
    expect(loggablePath(url)).toBe(logged);
  });
});

describe('gateway: a client that stalls its body', () => {
  let upstream: http.Server;
  let upstreamUrl: string;
  let gateway: GatewayUnderTest;
  beforeAll(async () => {
    upstream = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => res.end('{}'));
    });
    upstreamUrl = `http://127.0.0.1:${await listen(upstream, 0, '127.0.0.1')}`;
    gateway = await startGatewayUnderTest({ AUTH_URL: upstreamUrl, BODY_TIMEOUT_MS: '300' });
  });
  afterAll(async () => {
    await gateway.close();
    await closeServer(upstream);
  });

  /** Sends the head and part of a body, then nothing; answers what came back and when the socket closed. */
  function stall(method: string, path: string, headers: string): Promise<{ answer: string; closedAfterMs: number }> {
    const { port } = new URL(gateway.base);
    return new Promise((resolve, reject) => {
      const started = Date.now();
      let answer = '';
      const socket = net.connect(Number(port), '127.0.0.1', () => {
        socket.write(`${method} ${path} HTTP/1.1\r\nHost: x\r\n${headers}\r\n{"email":`);
      });
      socket.on('data', (chunk) => (answer += chunk.toString()));
      socket.on('close', () => resolve({ answer, closedAfterMs: Date.now() - started }));
      socket.on('error', reject);
      socket.setTimeout(5_000, () => socket.destroy(new Error('the gateway kept waiting')));
    });
  }

  it('answers 408 with the envelope and closes the connection when a JSON body stops coming', async () => {
    const { answer, closedAfterMs } = await stall('POST', '/api/auth/user/login', 'Content-Type: application/json\r\nContent-Length: 100\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer).toMatch(/connection: close/i);
    expect(answer).toContain('"code":"request_timeout"');
    expect(closedAfterMs).toBeLessThan(scaled(3_000));
    await settle();
    expect(gateway.records.find((r) => r.status === 408 && r.path === '/api/auth/user/login')).toMatchObject({ level: 'warn', method: 'POST' });
  });

  it('answers 408 when an upload stops coming', async () => {
    const { answer } = await stall('PUT', '/api/admin/users/65f0c0ffee0000000000abcd/avatar', 'Content-Type: multipart/form-data; boundary=x\r\nContent-Length: 5000\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
  });
});

describe('gateway: a fault in its own code', () => {
  it('answers a logged 500 with the envelope at once, never a request left hanging', async () => {
    const failing = await startGatewayUnderTest({}, {
      isRevoked: () => {
        throw new Error('a bug in a dependency the gateway calls on the request path');
      },
    });
    try {
      const token = failing.sign({ sub: 'u1', kind: 'user', role: 'user', sid: 'sid-1' });
      const started = Date.now();
      const res = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = http.request(`${failing.base}/api/auth/user/me`, { headers: { authorization: `Bearer ${token}`, 'x-request-id': 'fault-1' } }, (answer) => {
          let body = '';
          answer.on('data', (c) => (body += c));
          answer.on('end', () => resolve({ status: answer.statusCode ?? 0, body }));
        });
        req.once('error', reject);
        req.end();
      });
      expect(Date.now() - started).toBeLessThan(scaled(2_000));
      expect(res.status).toBe(500);
      expect(JSON.parse(res.body)).toEqual({ success: false, message: 'Internal server error', code: 'internal_error' });
      expect(res.body).not.toContain('a bug in a dependency');
    } finally {
      await failing.close();
    }
  });
});
