// The run's shared stack: one auth, desktop and gateway that the jest global setup starts once, in
// its own process, for every end-to-end file that only reads and writes through the API. Such a file
// makes its own accounts (unique addresses) and reads back only what it made, so files share the
// stack safely while running in parallel; a file that stops, slows or reconfigures a dependency, or
// needs settings of its own, starts its own stack with startStack (stack.ts).
//
// The shared stack runs the built services (`tsc -b`, which the global setup runs first), and shows
// its log streams through files (StackOptions.logDir), read back here on each access.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Redis } from '@acct/shared/redis';
import { startBackchannelReceiver } from '@acct/test-harness/backchannel-receiver';
import { EventTap } from '@acct/test-harness/event-tap';
import { openTestRedis, testUrls, type TestNames } from '@acct/test-harness/isolation';
import type { TestKeys } from '@acct/test-harness/keys';
import { checkAnswersOf, stopCheckingAnswersOf } from '@acct/test-harness/openapi';
import { startStack, type StackOptions } from './stack';

/** The shared stack's settings: every file that uses it must pass with these. */
export const SHARED_STACK_OPTIONS: StackOptions = {
  // Every file's requests come from 127.0.0.1: the limits the harness leaves at their defaults are
  // raised too, so one file's traffic never spends another's budget (the limit files have stacks of their own).
  // The OpenID provider is on, with the apps openid-provider.browser.test.ts signs in to (SHARED_OPENID_APPS).
  auth: {
    ADMIN_REGISTRATION_OPEN: 'true',
    BREACHED_PASSWORD_CHECK: 'true',
    RATE_PASSKEY_OPTIONS_IP_PER_MINUTE: '100000',
    RATE_EMAIL_LINK_IP_PER_HOUR: '100000',
    RATE_OPENID_START_IP_PER_MINUTE: '100000',
    OPENID_PROVIDER: 'true',
    OPENID_CLIENTS: JSON.stringify([
      { id: 'desktop', name: 'Desktop', firstParty: true, native: true, redirectUris: ['http://127.0.0.1/callback', 'com.example.desktop:/callback'] },
      { id: 'admin-panel', name: 'Admin panel', kind: 'admin', firstParty: true, redirectUris: ['http://127.0.0.1:9/admin/callback'], scopes: ['openid', 'profile', 'email'] },
      { id: 'cli', name: 'Command line', firstParty: true, deviceCode: true },
      { id: 'partner', name: 'Partner app', redirectUris: ['http://127.0.0.1:9/partner/callback'], postLogoutRedirectUris: ['http://127.0.0.1:9/partner/signed-out'] },
    ]),
    OPENID_CLIENT_SECRETS: JSON.stringify({ partner: 'p'.repeat(40) }),
    // A resource server of the deployment's other than the product API (RFC 8707).
    OPENID_RESOURCES: JSON.stringify([{ indicator: 'https://reports.example.test', name: 'Reports', scopes: ['reports.read', 'reports.write'], apps: ['desktop', 'partner'] }]),
    OPENID_COOKIE_KEYS: 'k'.repeat(40),
  },
  // The latest release held ten minutes: a release published answers the version check at once
  // because publishing clears what was held, not because the hold ran out.
  desktop: { RELEASE_CACHE_MS: '600000' },
  gateway: { REVOCATION_FEED_TOKENS: 'f'.repeat(40) },
};

/** What the global setup hands the workers, in TEST_SHARED_STACK. */
interface SharedStackAddress {
  url: string;
  names: TestNames;
  keys: TestKeys;
  logDir: string;
  /** Where the desktop app takes back-channel logouts (a receiver in the global setup's process). */
  backchannelLogoutUrl: string;
}

type Records = Record<string, any>[];

export interface SharedStack {
  url: string;
  names: TestNames;
  keys: TestKeys;
  /** The stack's log streams as they stand at the moment they are read (every file's records). */
  logs: { readonly request: Records; readonly audit: Records; readonly service: Records };
  redis: Redis;
  events: EventTap;
  /** Where the desktop app takes back-channel logouts: read them with receivedLogouts (@acct/test-harness/backchannel-receiver). */
  backchannelLogoutUrl: string;
  /** Closes this file's clients; the stack itself is stopped by the global teardown. */
  stop(): Promise<void>;
}

/** Global setup: starts the shared stack and says where it is through the environment. */
export async function startSharedStack(): Promise<{ stop(): Promise<void> }> {
  const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'acct-shared-stack-'));
  // The desktop app takes back-channel logouts at a receiver of the run's own.
  const receiver = await startBackchannelReceiver();
  const clients = (JSON.parse(SHARED_STACK_OPTIONS.auth!.OPENID_CLIENTS!) as Array<{ id: string }>).map((c) => (c.id === 'desktop' ? { ...c, backchannelLogoutUri: receiver.url } : c));
  const stack = await startStack('shared', { ...SHARED_STACK_OPTIONS, auth: { ...SHARED_STACK_OPTIONS.auth, OPENID_CLIENTS: JSON.stringify(clients) }, logDir });
  const address: SharedStackAddress = {
    url: stack.url,
    names: stack.names,
    keys: stack.keys,
    logDir,
    backchannelLogoutUrl: receiver.url,
  };
  process.env.TEST_SHARED_STACK = JSON.stringify(address);
  return {
    async stop() {
      await stack.stop();
      await receiver.close();
      fs.rmSync(logDir, { recursive: true, force: true });
    },
  };
}

const readRecords = (file: string): Records =>
  fs.existsSync(file)
    ? fs
        .readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line))
    : [];

/** A test file's handle on the shared stack (call in beforeAll, stop in afterAll). */
export async function sharedStack(): Promise<SharedStack> {
  const given = process.env.TEST_SHARED_STACK;
  if (!given) throw new Error('TEST_SHARED_STACK is not set: run the tests through jest (npm test), whose global setup starts the shared stack');
  const address = JSON.parse(given) as SharedStackAddress;
  const urls = testUrls();
  const redis = openTestRedis(urls.redis);
  const events = await EventTap.open(urls.amqp, address.names.exchange);
  checkAnswersOf(address.url);
  const stream = (name: string) => path.join(address.logDir, `${name}.jsonl`);
  return {
    url: address.url,
    names: address.names,
    keys: address.keys,
    logs: {
      get request() {
        return readRecords(stream('request'));
      },
      get audit() {
        return readRecords(stream('audit'));
      },
      get service() {
        return readRecords(stream('service'));
      },
    },
    redis,
    events,
    backchannelLogoutUrl: address.backchannelLogoutUrl,
    async stop() {
      stopCheckingAnswersOf(address.url);
      await events.close();
      await redis.quit();
    },
  };
}
