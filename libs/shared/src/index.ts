// @acct/shared: what two or more services need, and nothing else.
export * from './config';
export * from './logger';
export * from './errors';
export * from './envelope';
export * from './http';
export * from './health';
export * from './shutdown';
export * from './retry';
export * from './redis';
export * from './mongo';
export * from './amqp';
export * from './service';
export * from './access-token';
export * from './events';
export * from './dependency-errors';
export * from './internal-headers';
