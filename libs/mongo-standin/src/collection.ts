// One collection: documents in insertion order, the _id index, unique indexes kept as maps, TTL sweeps.
import { Query } from 'mingo';
import { CommandError } from './errors';
import { canonicalKey, describeKey, getPath, idKey, isMissing, type Doc } from './values';

export interface IndexSpec extends Doc {
  v: number;
  key: Record<string, number | string>;
  name: string;
  unique?: boolean;
  sparse?: boolean;
  partialFilterExpression?: Doc;
  expireAfterSeconds?: number;
}

/** A unique index: canonical key → the _id key of the document holding it. */
class UniqueIndex {
  readonly entries = new Map<string, string>();
  private readonly partial?: Query;
  private readonly fields: string[];

  constructor(readonly spec: IndexSpec) {
    this.fields = Object.keys(spec.key);
    if (spec.partialFilterExpression) this.partial = new Query(spec.partialFilterExpression);
  }

  /** The key a document has in this index, or undefined when the index does not cover it. */
  keyOf(doc: Doc): { key: string; keyValue: Doc } | undefined {
    const values = this.fields.map((f) => getPath(doc, f));
    if (this.spec.sparse && values.every(isMissing)) return undefined;
    if (this.partial && !this.partial.test(doc)) return undefined;
    const keyValue: Doc = {};
    this.fields.forEach((f, i) => (keyValue[f] = isMissing(values[i]) ? null : values[i]));
    return { key: canonicalKey(values), keyValue };
  }

  /** The single field and value an equality filter can be answered by, if this index can answer it. */
  get singleField(): string | undefined {
    return this.fields.length === 1 && !this.partial ? this.fields[0] : undefined;
  }
}

export class Collection {
  readonly docs = new Map<string, Doc>();
  readonly indexes: IndexSpec[] = [{ v: 2, key: { _id: 1 }, name: '_id_' }];
  private unique: UniqueIndex[] = [];

  constructor(
    readonly dbName: string,
    readonly name: string,
  ) {}

  get ns(): string {
    return `${this.dbName}.${this.name}`;
  }

  all(): Doc[] {
    return [...this.docs.values()];
  }

  /** Documents matching a filter, with a map lookup for equality on _id or a single-field unique index. */
  select(filter: Doc = {}): Doc[] {
    const keys = Object.keys(filter);
    if (keys.length === 0 || this.docs.size === 0) return this.all();
    if (keys.length === 1) {
      const field = keys[0];
      const value = filter[field];
      if (isPlainEquality(value)) {
        if (field === '_id') {
          const doc = this.docs.get(idKey(value));
          return doc ? [doc] : [];
        }
        const index = this.unique.find((u) => u.singleField === field);
        if (index && value !== null) {
          const id = index.entries.get(canonicalKey([value]));
          const doc = id === undefined ? undefined : this.docs.get(id);
          return doc ? [doc] : [];
        }
      }
    }
    // A top-level field asked to equal a string, number or boolean rules out, without mingo, every
    // document whose field holds another such value or is missing: the services' queue polls
    // ({ status: 'pending', leaseUntil: { $lte: now } }, twenty a second per stack in the tests) then
    // build no query at all. mingo, which costs an operator context per query, sees what is left.
    const equal = keys.filter((k) => !k.startsWith('$') && !k.includes('.') && isPrimitive(filter[k]) && !Number.isNaN(filter[k]));
    const left = equal.length ? this.all().filter((doc) => equal.every((k) => mayEqual(doc[k], filter[k] as string | number | boolean))) : this.all();
    if (left.length === 0) return left;
    const query = new Query(filter);
    return left.filter((doc) => query.test(doc));
  }

  insert(doc: Doc): void {
    const id = idKey(doc._id);
    if (this.docs.has(id)) throw this.duplicate(this.indexes[0], { _id: doc._id });
    const keys = this.uniqueKeys(doc, undefined);
    this.docs.set(id, doc);
    keys.forEach(([index, key]) => index.entries.set(key, id));
  }

  /** Swaps a stored document for its new version, after checking every unique index. */
  replace(current: Doc, next: Doc): void {
    const id = idKey(current._id);
    if (idKey(next._id) !== id) {
      throw new CommandError(
        'ImmutableField',
        "Performing an update on the path '_id' would modify the immutable field '_id'",
      );
    }
    const keys = this.uniqueKeys(next, id);
    this.unindex(current);
    this.docs.set(id, next);
    keys.forEach(([index, key]) => index.entries.set(key, id));
  }

  remove(doc: Doc): void {
    this.unindex(doc);
    this.docs.delete(idKey(doc._id));
  }

  /** Adds an index; answers false when an equal one exists. Unique over violating data fails. */
  createIndex(spec: IndexSpec): boolean {
    const sameName = this.indexes.find((i) => i.name === spec.name);
    const sameKey = this.indexes.find((i) => JSON.stringify(i.key) === JSON.stringify(spec.key));
    if (sameName || sameKey) {
      const existing = (sameName ?? sameKey)!;
      const same =
        JSON.stringify(existing.key) === JSON.stringify(spec.key) &&
        Boolean(existing.unique) === Boolean(spec.unique) &&
        existing.name === spec.name;
      if (same || spec.name === '_id_') return false;
      throw new CommandError(
        sameName ? 'IndexKeySpecsConflict' : 'IndexOptionsConflict',
        `An existing index has the same ${sameName ? 'name' : 'key pattern'} as the requested index: ${existing.name}`,
      );
    }
    if (spec.unique) {
      const index = new UniqueIndex(spec);
      for (const [id, doc] of this.docs) {
        const entry = index.keyOf(doc);
        if (!entry) continue;
        if (index.entries.has(entry.key)) throw this.duplicate(spec, entry.keyValue);
        index.entries.set(entry.key, id);
      }
      this.unique.push(index);
    }
    this.indexes.push(spec);
    return true;
  }

  dropIndex(name: string): void {
    if (name === '_id_') throw new CommandError('IllegalOperation', 'cannot drop _id index');
    const at = this.indexes.findIndex((i) => i.name === name);
    if (at < 0) throw new CommandError('IndexNotFound', `index not found with name [${name}]`);
    this.indexes.splice(at, 1);
    this.unique = this.unique.filter((u) => u.spec.name !== name);
  }

  dropAllIndexes(): void {
    this.indexes.splice(1);
    this.unique = [];
  }

  /** Removes documents whose TTL-indexed date is older than the index allows; answers how many. */
  sweepExpired(now: number): number {
    let removed = 0;
    for (const spec of this.indexes) {
      if (typeof spec.expireAfterSeconds !== 'number') continue;
      const field = Object.keys(spec.key)[0];
      for (const doc of this.all()) {
        const value = getPath(doc, field);
        const dates = (Array.isArray(value) ? value : [value]).filter((v): v is Date => v instanceof Date);
        if (dates.length === 0) continue;
        const earliest = Math.min(...dates.map((d) => d.getTime()));
        if (earliest + spec.expireAfterSeconds * 1000 <= now) {
          this.remove(doc);
          removed++;
        }
      }
    }
    return removed;
  }

  private uniqueKeys(doc: Doc, selfId: string | undefined): Array<[UniqueIndex, string]> {
    const keys: Array<[UniqueIndex, string]> = [];
    for (const index of this.unique) {
      const entry = index.keyOf(doc);
      if (!entry) continue;
      const holder = index.entries.get(entry.key);
      if (holder !== undefined && holder !== selfId) throw this.duplicate(index.spec, entry.keyValue);
      keys.push([index, entry.key]);
    }
    return keys;
  }

  private unindex(doc: Doc): void {
    const id = idKey(doc._id);
    for (const index of this.unique) {
      const entry = index.keyOf(doc);
      if (entry && index.entries.get(entry.key) === id) index.entries.delete(entry.key);
    }
  }

  private duplicate(spec: IndexSpec, keyValue: Doc): CommandError {
    return new CommandError(
      'DuplicateKey',
      `E11000 duplicate key error collection: ${this.ns} index: ${spec.name} dup key: ${describeKey(keyValue)}`,
      { keyPattern: spec.key, keyValue },
    );
  }
}

const isPrimitive = (value: unknown): value is string | number | boolean => typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';

/**
 * Whether a document's field may equal `wanted` (a string, number or boolean) as MongoDB compares:
 * false when it surely does not (a missing field, another primitive, an array without it among its
 * primitives and arrays: MongoDB looks one array deep, where mingo would look into `[['a']]`); a
 * BSON value (Long, Decimal128...), alone or in an array, is left to mingo.
 */
function mayEqual(value: unknown, wanted: string | number | boolean): boolean {
  if (value === undefined || value === null || isPrimitive(value)) return value === wanted;
  if (Array.isArray(value)) return value.includes(wanted) || value.some((v) => v !== null && typeof v === 'object' && !Array.isArray(v));
  return true;
}

function isPlainEquality(value: unknown): boolean {
  if (value === null) return true;
  if (typeof value !== 'object') return isPrimitive(value);
  if (Array.isArray(value) || value instanceof RegExp || value instanceof Date) return false;
  // BSON values (ObjectId, Long, ...) are equalities; plain objects may hold operators.
  return Object.getPrototypeOf(value) !== Object.prototype;
}
