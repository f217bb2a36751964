// MongoDB wire protocol framing: OP_QUERY in (the driver's handshake), OP_MSG in and out, OP_REPLY out.
import { BSON } from 'bson';
import { CommandError } from './errors';
import { DESERIALIZE_OPTIONS, type Doc } from './values';

export const OP_REPLY = 1;
export const OP_QUERY = 2004;
export const OP_COMPRESSED = 2012;
export const OP_MSG = 2013;

const CHECKSUM_PRESENT = 1 << 0;
const MORE_TO_COME = 1 << 1;

export interface Header {
  length: number;
  requestId: number;
  responseTo: number;
  opCode: number;
}

export type Incoming =
  | { kind: 'query'; header: Header; fullCollectionName: string; command: Doc }
  | { kind: 'msg'; header: Header; command: Doc; moreToCome: boolean };

export function readHeader(buf: Buffer): Header {
  return { length: buf.readInt32LE(0), requestId: buf.readInt32LE(4), responseTo: buf.readInt32LE(8), opCode: buf.readInt32LE(12) };
}

function readCString(buf: Buffer, offset: number): [string, number] {
  const end = buf.indexOf(0, offset);
  if (end < 0) throw new CommandError('FailedToParse', 'unterminated cstring');
  return [buf.toString('utf8', offset, end), end + 1];
}

function readDocument(buf: Buffer, offset: number): [Doc, number] {
  const size = buf.readInt32LE(offset);
  if (size < 5 || offset + size > buf.length) throw new CommandError('FailedToParse', 'invalid BSON document length');
  return [BSON.deserialize(buf.subarray(offset, offset + size), DESERIALIZE_OPTIONS), offset + size];
}

/** Parses one whole message (header included). */
export function parseMessage(message: Buffer): Incoming {
  const header = readHeader(message);
  if (header.opCode === OP_QUERY) {
    let offset = 20; // header (16) + flags (4)
    const [fullCollectionName, next] = readCString(message, offset);
    offset = next + 8; // numberToSkip, numberToReturn
    const [command] = readDocument(message, offset);
    return { kind: 'query', header, fullCollectionName, command };
  }
  if (header.opCode === OP_MSG) {
    const flags = message.readUInt32LE(16);
    const end = message.length - (flags & CHECKSUM_PRESENT ? 4 : 0);
    let offset = 20;
    let command: Doc | undefined;
    const sequences: Array<[string, Doc[]]> = [];
    while (offset < end) {
      const kind = message.readUInt8(offset++);
      if (kind === 0) {
        [command, offset] = readDocument(message, offset);
      } else if (kind === 1) {
        const size = message.readInt32LE(offset);
        const sectionEnd = offset + size;
        let [identifier, cursor] = readCString(message, offset + 4);
        const docs: Doc[] = [];
        while (cursor < sectionEnd) {
          let doc: Doc;
          [doc, cursor] = readDocument(message, cursor);
          docs.push(doc);
        }
        sequences.push([identifier, docs]);
        offset = sectionEnd;
        identifier = '';
      } else {
        throw new CommandError('FailedToParse', `unknown OP_MSG section kind ${kind}`);
      }
    }
    if (!command) throw new CommandError('FailedToParse', 'OP_MSG without a body section');
    for (const [identifier, docs] of sequences) command[identifier] = docs;
    return { kind: 'msg', header, command, moreToCome: (flags & MORE_TO_COME) !== 0 };
  }
  throw new CommandError('NotImplemented', `opCode ${header.opCode} is not supported`);
}

function header(length: number, requestId: number, responseTo: number, opCode: number): Buffer {
  const buf = Buffer.alloc(16);
  buf.writeInt32LE(length, 0);
  buf.writeInt32LE(requestId, 4);
  buf.writeInt32LE(responseTo, 8);
  buf.writeInt32LE(opCode, 12);
  return buf;
}

export function encodeMsg(reply: Doc, requestId: number, responseTo: number): Buffer {
  const body = BSON.serialize(reply);
  const prefix = Buffer.alloc(5); // flagBits 0, section kind 0
  return Buffer.concat([header(16 + 5 + body.length, requestId, responseTo, OP_MSG), prefix, body]);
}

export function encodeReply(reply: Doc, requestId: number, responseTo: number): Buffer {
  const body = BSON.serialize(reply);
  const fields = Buffer.alloc(20); // responseFlags, cursorID (int64), startingFrom, numberReturned
  fields.writeInt32LE(1, 16);
  return Buffer.concat([header(16 + 20 + body.length, requestId, responseTo, OP_REPLY), fields, body]);
}
