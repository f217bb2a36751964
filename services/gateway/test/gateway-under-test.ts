// Builds the gateway app in-process with generated keys and chosen upstreams, listening on port 0.
import http from 'node:http';
import jwt from 'jsonwebtoken';
import { AccessTokenVerifier, closeServer, createMemoryLogger, listen, publicKeyFrom, withLowS } from '@acct/shared';
import { createGatewayHandler, loadGatewayConfig, UpstreamClient } from '@acct/gateway';
import type { RevocationCheck } from '@acct/shared';
import { testKeys } from '@acct/test-harness/keys';

export interface GatewayUnderTest {
  base: string;
  /** The request records. */
  records: Record<string, any>[];
  /** The gateway's own log records (warnings, refusals). */
  serviceRecords: Record<string, any>[];
  sign(claims: Record<string, unknown>, options?: jwt.SignOptions): string;
  close(): Promise<void>;
}

/**
 * `revocations` answers which sessions ended (the feed's place); by default none did. Tests of the
 * feed itself run against Redis (libs/shared/test/revocation-feed.state.test.ts, the e2e suites).
 */
export async function startGatewayUnderTest(env: Record<string, string> = {}, revocations: RevocationCheck = { isRevoked: () => false }): Promise<GatewayUnderTest> {
  const config = loadGatewayConfig({ AUTH_URL: 'http://127.0.0.1:1', DESKTOP_URL: 'http://127.0.0.1:1', ...env });
  const { privateKey, publicKey } = testKeys();
  const verifier = new AccessTokenVerifier(publicKeyFrom(publicKey), config.JWT_ISSUER, config.JWT_AUDIENCE);
  const upstreams = {
    auth: new UpstreamClient(config.AUTH_URL, config.UPSTREAM_TIMEOUT_MS),
    desktop: new UpstreamClient(config.DESKTOP_URL, config.UPSTREAM_TIMEOUT_MS),
  };
  const { logger, records: serviceRecords } = createMemoryLogger();
  const { logger: requestLogger, records } = createMemoryLogger();
  const server = http.createServer(createGatewayHandler({ config, logger, requestLogger, verifier, revocations, upstreams }));
  const base = `http://127.0.0.1:${await listen(server, 0, '127.0.0.1')}`;
  return {
    base,
    records,
    serviceRecords,
    sign: (claims, options = {}) =>
      withLowS(jwt.sign(claims, privateKey, { algorithm: 'ES256', issuer: config.JWT_ISSUER, audience: config.JWT_AUDIENCE, expiresIn: 60, ...options })),
    close: async () => {
      await Promise.all(Object.values(upstreams).map((u) => u.close()));
      await closeServer(server);
    },
  };
}

/** Lets the request log's finish handler run before a test reads the records. */
export const settle = () => new Promise((r) => setTimeout(r, 10));
