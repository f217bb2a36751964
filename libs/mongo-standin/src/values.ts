// Value helpers: dotted-path access, canonical keys for index lookups, and deep copies that keep BSON types.
import { BSON, ObjectId } from 'bson';

export type Doc = Record<string, unknown>;

/** How the stand-in deserialises: int64 stays Long so it round-trips, everything else is promoted. */
export const DESERIALIZE_OPTIONS: BSON.DeserializeOptions = { promoteLongs: false };

export function clone<T extends Doc>(doc: T): T {
  return BSON.deserialize(BSON.serialize(doc), DESERIALIZE_OPTIONS) as T;
}

const MISSING = Symbol('missing');

/** Value at a dotted path; arrays along the path fan out like MongoDB's index keys do (first element only here). */
export function getPath(doc: unknown, path: string): unknown {
  let value: unknown = doc;
  for (const part of path.split('.')) {
    if (value === null || value === undefined) return MISSING;
    if (Array.isArray(value) && !/^\d+$/.test(part)) value = value[0];
    if (typeof value !== 'object' || value === null) return MISSING;
    if (!(part in (value as Doc))) return MISSING;
    value = (value as Doc)[part];
  }
  return value;
}

export const isMissing = (value: unknown) => value === MISSING || value === undefined;

/** A canonical string for a tuple of values: equal BSON values give equal keys, across types they differ. */
export function canonicalKey(values: unknown[]): string {
  return Buffer.from(BSON.serialize({ k: values.map((v) => (isMissing(v) ? null : v)) })).toString('base64');
}

export function idKey(id: unknown): string {
  return canonicalKey([id]);
}

export function newObjectId(): ObjectId {
  return new ObjectId();
}

/** Compact JSON-like rendering of a key value for error messages: `{ email: "a@b.c" }`. */
export function describeKey(keyValue: Doc): string {
  const parts = Object.entries(keyValue).map(([k, v]) => `${k}: ${v === null ? 'null' : JSON.stringify(v instanceof Object && 'toHexString' in v ? `ObjectId('${String(v)}')` : v)}`);
  return `{ ${parts.join(', ')} }`;
}
