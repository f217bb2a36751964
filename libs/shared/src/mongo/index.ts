// @acct/shared/mongo: the MongoDB connection (mongoose) and the event outbox stored in it.
export * from './connect';
export * from './outbox';
