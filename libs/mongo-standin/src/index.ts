// @acct/mongo-standin: an in-memory MongoDB wire-protocol server for development and tests; never for production.
export { startMongoStandin, type MongoStandin, type StandinOptions } from './server';
export { Engine } from './engine';
