// The command engine: runs one command document to completion (synchronously, so each is atomic) and answers a reply.
import 'mingo/init/system';
import { Aggregator, find as mingoFind } from 'mingo';
import { Long, ObjectId } from 'bson';
import { Collection, type IndexSpec } from './collection';
import { CommandError } from './errors';
import { applyUpdate, seedUpsert, validateUpdate } from './update';
import { clone, newObjectId, type Doc } from './values';

export const MAX_BSON_OBJECT_SIZE = 16 * 1024 * 1024;
export const MAX_MESSAGE_SIZE = 48_000_000;
export const MAX_WRITE_BATCH_SIZE = 100_000;
const DEFAULT_BATCH_SIZE = 101;

interface OpenCursor {
  ns: string;
  docs: Doc[];
}

type Handler = (cmd: Doc, db: string, ctx: CommandContext) => Doc;

export interface CommandContext {
  connectionId: number;
}

export class Engine {
  private readonly dbs = new Map<string, Map<string, Collection>>();
  private readonly cursors = new Map<string, OpenCursor>();
  private nextCursorId = 1n;
  private readonly handlers: Record<string, Handler>;

  constructor(private readonly startedAt = new Date()) {
    this.handlers = {
      hello: (_c, _d, ctx) => this.hello(ctx),
      ismaster: (_c, _d, ctx) => this.hello(ctx),
      ping: () => ({ ok: 1 }),
      buildinfo: () => ({ version: '7.0.0', versionArray: [7, 0, 0, 0], gitVersion: 'mongo-standin', bits: 64, maxBsonObjectSize: MAX_BSON_OBJECT_SIZE, ok: 1 }),
      endsessions: () => ({ ok: 1 }),
      serverstatus: () => ({ host: 'mongo-standin', version: '7.0.0', process: 'mongo-standin', uptime: (Date.now() - this.startedAt.getTime()) / 1000, localTime: new Date(), ok: 1 }),
      whatsmyuri: () => ({ you: '127.0.0.1', ok: 1 }),
      create: (c, d) => this.create(d, String(c.create)),
      drop: (c, d) => this.drop(d, String(c.drop)),
      dropdatabase: (_c, d) => (this.dbs.delete(d), { dropped: d, ok: 1 }),
      listdatabases: () => this.listDatabases(),
      listcollections: (c, d) => this.listCollections(c, d),
      insert: (c, d) => this.insert(c, d),
      update: (c, d) => this.update(c, d),
      delete: (c, d) => this.delete(c, d),
      findandmodify: (c, d) => this.findAndModify(c, d),
      find: (c, d) => this.find(c, d),
      getmore: (c, d) => this.getMore(c, d),
      killcursors: (c) => this.killCursors(c),
      aggregate: (c, d) => this.aggregate(c, d),
      count: (c, d) => this.count(c, d),
      distinct: (c, d) => this.distinct(c, d),
      createindexes: (c, d) => this.createIndexes(c, d),
      listindexes: (c, d) => this.listIndexes(c, d),
      dropindexes: (c, d) => this.dropIndexes(c, d),
      deleteindexes: (c, d) => this.dropIndexes({ ...c, dropIndexes: c.deleteIndexes }, d),
    };
  }

  /** Runs one command; every failure becomes an `{ok: 0}` reply, never an exception. */
  run(cmd: Doc, db: string, ctx: CommandContext): Doc {
    const name = Object.keys(cmd)[0] ?? '';
    try {
      if (cmd.txnNumber !== undefined || cmd.startTransaction !== undefined) {
        throw new CommandError('IllegalOperation', 'Transaction numbers are only allowed on a replica set member or mongos');
      }
      const handler = this.handlers[name.toLowerCase()];
      if (!handler) throw new CommandError('CommandNotFound', `no such command: '${name}'`);
      return handler(cmd, db, ctx);
    } catch (err) {
      if (err instanceof CommandError) return err.toReply();
      return { ok: 0, errmsg: (err as Error).message ?? String(err), code: 1, codeName: 'InternalError' };
    }
  }

  /** Removes TTL-expired documents everywhere; answers how many. */
  sweepExpired(now = Date.now()): number {
    let removed = 0;
    for (const collections of this.dbs.values()) for (const c of collections.values()) removed += c.sweepExpired(now);
    return removed;
  }

  private hello(ctx: CommandContext): Doc {
    return {
      helloOk: true,
      ismaster: true,
      isWritablePrimary: true,
      maxBsonObjectSize: MAX_BSON_OBJECT_SIZE,
      maxMessageSizeBytes: MAX_MESSAGE_SIZE,
      maxWriteBatchSize: MAX_WRITE_BATCH_SIZE,
      localTime: new Date(),
      logicalSessionTimeoutMinutes: 30,
      connectionId: ctx.connectionId,
      minWireVersion: 0,
      maxWireVersion: 21,
      readOnly: false,
      ok: 1,
    };
  }

  private collection(db: string, name: string, create: true): Collection;
  private collection(db: string, name: string, create?: false): Collection | undefined;
  private collection(db: string, name: string, create = false): Collection | undefined {
    if (typeof name !== 'string' || name.length === 0) throw new CommandError('InvalidNamespace', `Invalid collection name: ${String(name)}`);
    let collections = this.dbs.get(db);
    if (!collections) {
      if (!create) return undefined;
      collections = new Map();
      this.dbs.set(db, collections);
    }
    let collection = collections.get(name);
    if (!collection && create) {
      collection = new Collection(db, name);
      collections.set(name, collection);
    }
    return collection;
  }

  private create(db: string, name: string): Doc {
    if (this.collection(db, name)) throw new CommandError('NamespaceExists', `Collection ${db}.${name} already exists.`);
    this.collection(db, name, true);
    return { ok: 1 };
  }

  private drop(db: string, name: string): Doc {
    const collections = this.dbs.get(db);
    const existed = collections?.delete(name) ?? false;
    return existed ? { ns: `${db}.${name}`, nIndexesWas: 1, ok: 1 } : { ok: 1 };
  }

  private listDatabases(): Doc {
    const databases = [...this.dbs.keys()].map((name) => ({ name, sizeOnDisk: 0, empty: false }));
    return { databases, totalSize: 0, totalSizeMb: 0, ok: 1 };
  }

  private listCollections(cmd: Doc, db: string): Doc {
    const infos = [...(this.dbs.get(db)?.values() ?? [])].map((c) => ({
      name: c.name,
      type: 'collection',
      options: {},
      info: { readOnly: false },
      idIndex: c.indexes[0],
    }));
    const filtered = cmd.filter ? mingoFind(infos, cmd.filter as Doc).all() : infos;
    return this.openCursor(`${db}.$cmd.listCollections`, filtered as Doc[], (cmd.cursor as Doc | undefined)?.batchSize);
  }

  private insert(cmd: Doc, db: string): Doc {
    const collection = this.collection(db, String(cmd.insert), true);
    const documents = (cmd.documents as Doc[] | undefined) ?? [];
    const ordered = cmd.ordered !== false;
    const writeErrors: Doc[] = [];
    let n = 0;
    documents.forEach((doc, index) => {
      if (ordered && writeErrors.length) return;
      // As in MongoDB, _id is always the first field of a stored document.
      const stored = { _id: doc._id === undefined ? newObjectId() : doc._id, ...clone(doc) };
      try {
        collection.insert(stored);
        n++;
      } catch (err) {
        writeErrors.push(writeError(index, err));
      }
    });
    return withWriteErrors({ n, ok: 1 }, writeErrors);
  }

  private update(cmd: Doc, db: string): Doc {
    const collection = this.collection(db, String(cmd.update), true);
    const ordered = cmd.ordered !== false;
    const writeErrors: Doc[] = [];
    const upserted: Doc[] = [];
    let n = 0;
    let nModified = 0;
    ((cmd.updates as Doc[] | undefined) ?? []).forEach((stmt, index) => {
      if (ordered && writeErrors.length) return;
      try {
        validateUpdate(stmt.u);
        const spec = stmt.u as Doc;
        const arrayFilters = stmt.arrayFilters as Doc[] | undefined;
        const matches = collection.select((stmt.q as Doc) ?? {});
        const targets = stmt.multi ? matches : matches.slice(0, 1);
        if (targets.length === 0 && stmt.upsert) {
          const doc = seedUpsert((stmt.q as Doc) ?? {}, spec, arrayFilters);
          collection.insert(doc);
          upserted.push({ index, _id: doc._id });
          n++;
          return;
        }
        for (const current of targets) {
          const next = applyUpdate(current, spec, { arrayFilters });
          n++;
          if (JSON.stringify(next) === JSON.stringify(current) && sameTypes(next, current)) continue;
          collection.replace(current, next);
          nModified++;
        }
      } catch (err) {
        writeErrors.push(writeError(index, err));
      }
    });
    const reply: Doc = { n, nModified, ok: 1 };
    if (upserted.length) reply.upserted = upserted;
    return withWriteErrors(reply, writeErrors);
  }

  private delete(cmd: Doc, db: string): Doc {
    const collection = this.collection(db, String(cmd.delete));
    let n = 0;
    for (const stmt of (cmd.deletes as Doc[] | undefined) ?? []) {
      if (!collection) break;
      const matches = collection.select((stmt.q as Doc) ?? {});
      const targets = Number(stmt.limit) === 1 ? matches.slice(0, 1) : matches;
      targets.forEach((doc) => collection.remove(doc));
      n += targets.length;
    }
    return { n, ok: 1 };
  }

  private findAndModify(cmd: Doc, db: string): Doc {
    const collection = this.collection(db, String(cmd.findAndModify ?? cmd.findandmodify), true);
    const query = (cmd.query as Doc) ?? {};
    const matched = collection.select(query);
    // Sorted only where there is an order to choose (a queue poll mostly finds nothing, or one
    // document): each mingo cursor copies its whole operator context first.
    const sorted = isNonEmpty(cmd.sort) && matched.length > 1 ? (sortedByObjectId(matched, cmd.sort as Doc) ?? mingoFind(matched, {}).sort(cmd.sort as Doc).all()) : matched;
    const current = sorted[0] as Doc | undefined;
    const project = (doc: Doc | null) => (doc && isNonEmpty(cmd.fields) ? (mingoFind([doc], {}, cmd.fields as Doc).all()[0] as Doc) : doc);
    if (cmd.remove) {
      if (current) collection.remove(current);
      return { lastErrorObject: { n: current ? 1 : 0 }, value: project(current ?? null), ok: 1 };
    }
    validateUpdate(cmd.update);
    const spec = cmd.update as Doc;
    const arrayFilters = cmd.arrayFilters as Doc[] | undefined;
    if (!current) {
      if (!cmd.upsert) return { lastErrorObject: { n: 0, updatedExisting: false }, value: null, ok: 1 };
      const doc = seedUpsert(query, spec, arrayFilters);
      collection.insert(doc);
      return { lastErrorObject: { n: 1, updatedExisting: false, upserted: doc._id }, value: project(cmd.new ? doc : null), ok: 1 };
    }
    const next = applyUpdate(current, spec, { arrayFilters });
    collection.replace(current, next);
    return { lastErrorObject: { n: 1, updatedExisting: true }, value: project(cmd.new ? next : current), ok: 1 };
  }

  private find(cmd: Doc, db: string): Doc {
    const name = String(cmd.find);
    const collection = this.collection(db, name);
    const limit = Number(cmd.limit ?? 0);
    const matched = collection?.select((cmd.filter as Doc) ?? {}) ?? [];
    // Ordered by ObjectId alone (a page of a list, as MongoDB walks the _id index): the ids' hex
    // strings order as the ids do, a plain sort of those is far cheaper than mingo's generic one.
    const byId = sortedByObjectId(matched, cmd.sort as Doc | undefined);
    const projected = isNonEmpty(cmd.projection);
    const sorted = !byId && isNonEmpty(cmd.sort);
    let docs: Doc[];
    if (!projected && !sorted) {
      // Nothing for mingo to do (most finds: by id or a unique field, in id order): a slice, without
      // the operator context mingo builds for every query.
      const skip = Math.max(0, Number(cmd.skip ?? 0) || 0);
      docs = (byId ?? matched).slice(skip, limit ? skip + Math.abs(limit) : undefined);
    } else {
      let cursor = mingoFind(byId ?? matched, {}, projected ? (cmd.projection as Doc) : undefined);
      if (sorted) cursor = cursor.sort(cmd.sort as Doc);
      if (cmd.skip) cursor = cursor.skip(Number(cmd.skip));
      if (limit) cursor = cursor.limit(Math.abs(limit));
      docs = cursor.all() as Doc[];
    }
    const single = limit < 0 || cmd.singleBatch === true;
    return this.openCursor(`${db}.${name}`, docs, single ? docs.length || 1 : (cmd.batchSize as number | undefined));
  }

  private getMore(cmd: Doc, db: string): Doc {
    const id = BigInt(String(cmd.getMore));
    const open = this.cursors.get(id.toString());
    if (!open) throw new CommandError('CursorNotFound', `cursor id ${id} not found`);
    const size = Number(cmd.batchSize) > 0 ? Number(cmd.batchSize) : open.docs.length;
    const nextBatch = open.docs.splice(0, size);
    const exhausted = open.docs.length === 0;
    if (exhausted) this.cursors.delete(id.toString());
    return { cursor: { nextBatch, id: exhausted ? Long.ZERO : Long.fromBigInt(id), ns: open.ns ?? `${db}.${cmd.collection}` }, ok: 1 };
  }

  private killCursors(cmd: Doc): Doc {
    const ids = ((cmd.cursors as unknown[]) ?? []).map((c) => String(c));
    const killed = ids.filter((id) => this.cursors.delete(id));
    const notFound = ids.filter((id) => !killed.includes(id));
    const asLong = (list: string[]) => list.map((id) => Long.fromString(id));
    return { cursorsKilled: asLong(killed), cursorsNotFound: asLong(notFound), cursorsAlive: [], cursorsUnknown: [], ok: 1 };
  }

  private aggregate(cmd: Doc, db: string): Doc {
    const name = String(cmd.aggregate);
    const pipeline = (cmd.pipeline as Doc[] | undefined) ?? [];
    const stage = pipeline.find((s) => '$out' in s || '$merge' in s);
    if (stage) throw new CommandError('NotImplemented', `${Object.keys(stage)[0]} is not supported by the stand-in`);
    const source = this.collection(db, name)?.all() ?? [];
    let docs: Doc[];
    try {
      docs = new Aggregator(pipeline).run(source) as Doc[];
    } catch (err) {
      throw new CommandError('FailedToParse', (err as Error).message);
    }
    return this.openCursor(`${db}.${name}`, docs, (cmd.cursor as Doc | undefined)?.batchSize);
  }

  private count(cmd: Doc, db: string): Doc {
    let docs = this.collection(db, String(cmd.count))?.select((cmd.query as Doc) ?? {}) ?? [];
    if (cmd.skip) docs = docs.slice(Number(cmd.skip));
    if (cmd.limit) docs = docs.slice(0, Math.abs(Number(cmd.limit)));
    return { n: docs.length, ok: 1 };
  }

  private distinct(cmd: Doc, db: string): Doc {
    const docs = this.collection(db, String(cmd.distinct))?.select((cmd.query as Doc) ?? {}) ?? [];
    const result = new Aggregator([{ $unwind: { path: `$${cmd.key}`, preserveNullAndEmptyArrays: false } }, { $group: { _id: `$${cmd.key}` } }]).run(docs) as Doc[];
    return { values: result.map((r) => r._id).filter((v) => v !== undefined), ok: 1 };
  }

  private createIndexes(cmd: Doc, db: string): Doc {
    const existedBefore = Boolean(this.collection(db, String(cmd.createIndexes)));
    const collection = this.collection(db, String(cmd.createIndexes), true);
    const before = collection.indexes.length;
    for (const raw of (cmd.indexes as Doc[] | undefined) ?? []) {
      if (!raw.key || typeof raw.key !== 'object') throw new CommandError('BadValue', 'index specification must have a key');
      const name = (raw.name as string | undefined) ?? Object.entries(raw.key as Doc).map(([k, v]) => `${k}_${v}`).join('_');
      collection.createIndex({ v: 2, ...raw, name } as IndexSpec);
    }
    return { numIndexesBefore: before, numIndexesAfter: collection.indexes.length, createdCollectionAutomatically: !existedBefore, ok: 1 };
  }

  private listIndexes(cmd: Doc, db: string): Doc {
    const collection = this.collection(db, String(cmd.listIndexes));
    if (!collection) throw new CommandError('NamespaceNotFound', `ns does not exist: ${db}.${cmd.listIndexes}`);
    return this.openCursor(`${db}.${collection.name}`, collection.indexes.map((i) => ({ ...i })), (cmd.cursor as Doc | undefined)?.batchSize);
  }

  private dropIndexes(cmd: Doc, db: string): Doc {
    const collection = this.collection(db, String(cmd.dropIndexes));
    if (!collection) throw new CommandError('NamespaceNotFound', `ns not found ${db}.${cmd.dropIndexes}`);
    const before = collection.indexes.length;
    const index = cmd.index;
    if (index === '*') collection.dropAllIndexes();
    else if (typeof index === 'string') collection.dropIndex(index);
    else if (Array.isArray(index)) index.forEach((n) => collection.dropIndex(String(n)));
    else {
      const match = collection.indexes.find((i) => JSON.stringify(i.key) === JSON.stringify(index));
      if (!match) throw new CommandError('IndexNotFound', `can't find index with key: ${JSON.stringify(index)}`);
      collection.dropIndex(match.name);
    }
    return { nIndexesWas: before, ok: 1 };
  }

  private openCursor(ns: string, docs: Doc[], batchSize?: unknown): Doc {
    const size = Number(batchSize) >= 0 && batchSize !== undefined ? Number(batchSize) : DEFAULT_BATCH_SIZE;
    const firstBatch = docs.slice(0, size);
    const rest = docs.slice(size);
    let id = Long.ZERO;
    if (rest.length) {
      const n = this.nextCursorId++;
      this.cursors.set(n.toString(), { ns, docs: rest });
      id = Long.fromBigInt(n);
    }
    return { cursor: { firstBatch, id, ns }, ok: 1 };
  }
}

function writeError(index: number, err: unknown): Doc {
  if (err instanceof CommandError) {
    const { ok: _ok, codeName: _name, ...rest } = err.toReply();
    return { index, ...rest };
  }
  return { index, code: 1, errmsg: (err as Error).message };
}

function withWriteErrors(reply: Doc, writeErrors: Doc[]): Doc {
  return writeErrors.length ? { ...reply, writeErrors } : reply;
}

/** The documents in the order of `sort` when it is `{_id: 1}` or `{_id: -1}` and every `_id` is an ObjectId; undefined otherwise. */
function sortedByObjectId(docs: Doc[], sort: Doc | undefined): Doc[] | undefined {
  if (!sort) return undefined;
  const keys = Object.keys(sort);
  const direction = Number(sort._id);
  if (keys.length !== 1 || keys[0] !== '_id' || (direction !== 1 && direction !== -1)) return undefined;
  const keyed: Array<[string, Doc]> = [];
  for (const doc of docs) {
    if (!(doc._id instanceof ObjectId)) return undefined;
    keyed.push([doc._id.toHexString(), doc]);
  }
  keyed.sort((a, b) => (a[0] < b[0] ? -direction : a[0] > b[0] ? direction : 0));
  return keyed.map(([, doc]) => doc);
}

/** JSON equality misses type changes (int to Long, string to ObjectId); compare constructors too. */
function sameTypes(a: unknown, b: unknown): boolean {
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return typeof a === typeof b;
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  const keys = Object.keys(a as Doc);
  return keys.every((k) => sameTypes((a as Doc)[k], (b as Doc)[k]));
}

/** A document with at least one field (a projection or a sort that asks for something). */
function isNonEmpty(value: unknown): boolean {
  return typeof value === 'object' && value !== null && Object.keys(value).length > 0;
}
