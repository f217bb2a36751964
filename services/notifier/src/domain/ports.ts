// What the notifier's rules work with: the transports in transports/ and the store in data-access/
// implement these.
import type { Logger } from '@acct/shared';
import type { Templates } from './templates';

export interface Mail {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** Stable per event: a Message-ID, and the .eml file name. */
  id: string;
  /** The language it is written in (its Content-Language header). */
  language?: string;
}

export interface Mailer {
  readonly name: string;
  /** Throws a PermanentDeliveryError when a retry cannot help, anything else when it might. */
  send(mail: Mail): Promise<void>;
  close(): void;
}

export interface PushNotification {
  title: string;
  body: string;
  category: string;
  /** FCM data values are strings. */
  data: Record<string, string>;
}

export interface PushResult {
  successCount: number;
  failureCount: number;
  /** Tokens the push service says are unregistered or invalid: remove them. */
  deadTokens: string[];
}

export interface PushSender {
  readonly name: string;
  send(tokens: string[], notification: PushNotification): Promise<PushResult>;
}

/** Devices' push tokens: the notifier is their one owner. */
export interface DeviceTokens {
  /** Stores a device's token, as belonging to the session that registered it (when known). */
  register(userId: string, deviceId: string, platform: string, pushToken: string, sessionId?: string): Promise<void>;
  /** Removes the tokens registered by these sessions of the user, or (`'all'`) every token of the user; answers how many. */
  removeOfSessions(userId: string, sessionIds: string[] | 'all'): Promise<number>;
  tokensOf(userId: string): Promise<string[]>;
  remove(tokens: string[]): Promise<number>;
}

/** What the event handlers work with, wired once in server.ts. */
export interface NotifierDeps {
  devices: DeviceTokens;
  push: PushSender;
  mailer: Mailer;
  templates: Templates;
  productName: string;
  /** Who a person turns to, named at the end of every mail (SUPPORT_CONTACT); none: the line is empty. */
  supportContact?: string;
  logger: Logger;
}

/** The part of the deps a handler works with: its signature says which. */
export type Needs<K extends keyof NotifierDeps> = Pick<NotifierDeps, K>;
