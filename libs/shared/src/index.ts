// @acct/shared: what two or more services need, and nothing else. This entry loads no store or
// broker client and no express; those are the subpaths `@acct/shared/http`, `/mongo`, `/redis`
// and `/amqp`, loaded only by the services that use them.
export * from './config';
export * from './secrets';
export * from './logger';
export * from './errors';
export * from './envelope';
export * from './health';
export * from './shutdown';
export * from './retry';
export * from './service';
export * from './access-token';
export * from './events';
export * from './email-address';
export * from './return-target';
export * from './ecdsa-low-s';
export * from './loggable-url';
export * from './dependency-errors';
export * from './internal-headers';
export * from './client-address';
export * from './request-context';
export * from './poll-loop';
export * from './metrics';
export * from './session-liveness';
export * from './desktop-release';
export * from './html';
export * from './language-tag';
export * from './bot-check-widgets';
