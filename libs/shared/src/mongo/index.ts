// @acct/shared/mongo: the MongoDB connection (mongoose), the leased queue and the event outbox stored in it.
export * from './connect';
export * from './leased-queue';
export * from './outbox';
