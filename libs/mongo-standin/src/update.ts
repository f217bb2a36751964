// Applying MongoDB update documents (operators or replacement) to copies of stored documents.
import { update as applyOperator } from 'mingo';
import { CommandError } from './errors';
import { clone, newObjectId, type Doc } from './values';

export type UpdateSpec = Doc | Doc[];

const isOperatorUpdate = (spec: Doc) => Object.keys(spec).some((k) => k.startsWith('$'));

export function validateUpdate(spec: unknown): asserts spec is UpdateSpec {
  if (Array.isArray(spec)) {
    throw new CommandError('NotImplemented', 'pipeline-style updates are not supported by the stand-in');
  }
  if (spec === null || typeof spec !== 'object') throw new CommandError('FailedToParse', 'Update must be a document');
  const keys = Object.keys(spec);
  if (keys.some((k) => k.startsWith('$')) && !keys.every((k) => k.startsWith('$'))) {
    throw new CommandError('FailedToParse', 'Update document cannot mix operators and fields');
  }
}

/** Answers the updated copy of `doc` (never mutating it), or the replacement keeping its _id. */
export function applyUpdate(doc: Doc, spec: Doc, options: { arrayFilters?: Doc[]; inserting?: boolean } = {}): Doc {
  if (!isOperatorUpdate(spec)) {
    const replacement = clone(spec);
    if ('_id' in replacement && String(replacement._id) !== String(doc._id)) {
      throw new CommandError('ImmutableField', "After applying the update, the (immutable) field '_id' was found to have been altered");
    }
    return { _id: doc._id, ...replacement };
  }
  const next = clone(doc);
  for (const [op, args] of Object.entries(spec)) {
    if (op === '$setOnInsert') {
      if (options.inserting) applyOperator(next, { $set: args as Doc }, options.arrayFilters ?? []);
      continue;
    }
    try {
      applyOperator(next, { [op]: args } as Parameters<typeof applyOperator>[1], options.arrayFilters ?? []);
    } catch (err) {
      throw new CommandError('FailedToParse', (err as Error).message);
    }
  }
  return next;
}

/** The document an upsert starts from: the filter's equality fields, then the update, with an _id. */
export function seedUpsert(filter: Doc, spec: Doc, arrayFilters?: Doc[]): Doc {
  const seed: Doc = {};
  collectEqualities(filter, seed);
  let doc: Doc;
  if (isOperatorUpdate(spec)) {
    doc = applyUpdate(seed, spec, { arrayFilters, inserting: true });
  } else {
    doc = { ...(seed._id !== undefined ? { _id: seed._id } : {}), ...clone(spec) };
  }
  if (doc._id === undefined) doc = { _id: newObjectId(), ...doc };
  return doc;
}

function collectEqualities(filter: Doc, into: Doc): void {
  for (const [key, value] of Object.entries(filter)) {
    if (key === '$and' && Array.isArray(value)) {
      value.forEach((part) => collectEqualities(part as Doc, into));
    } else if (!key.startsWith('$')) {
      if (value !== null && typeof value === 'object' && !Array.isArray(value) && Object.getPrototypeOf(value) === Object.prototype) {
        const ops = value as Doc;
        if ('$eq' in ops) setPath(into, key, ops.$eq);
        else if (!Object.keys(ops).some((k) => k.startsWith('$'))) setPath(into, key, value);
      } else if (!(value instanceof RegExp)) {
        setPath(into, key, value);
      }
    }
  }
}

function setPath(doc: Doc, path: string, value: unknown): void {
  const parts = path.split('.');
  let node = doc;
  for (const part of parts.slice(0, -1)) {
    if (typeof node[part] !== 'object' || node[part] === null) node[part] = {};
    node = node[part] as Doc;
  }
  node[parts[parts.length - 1]] = value;
}
