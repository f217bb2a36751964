// The revocation feed's streams (revocation-events.ts), on a source in memory: a token is found in
// constant time among several, and each token holds at most its cap of open streams, freed as they close.
import { EventEmitter } from 'node:events';
import type http from 'node:http';
import { RevocationEvents } from '../src/revocation-events';

const source = { freshAsOfMs: 0, entriesAfter: () => [], subscribe: () => () => undefined };

/** A response that records what was written, and closes when told. */
function response() {
  const res = Object.assign(new EventEmitter(), { writeHead: jest.fn(), write: jest.fn(), end: jest.fn() });
  return res as unknown as http.ServerResponse & EventEmitter;
}
const request = { headers: {} } as http.IncomingMessage;

describe('RevocationEvents', () => {
  it('names which token a header carries, and none for a wrong one', () => {
    const events = new RevocationEvents(source, ['first-token', 'second-token']);
    expect(events.tokenOf('Bearer second-token')).toBe(1);
    expect(events.tokenOf('Bearer first-token')).toBe(0);
    expect(events.tokenOf('Bearer third-token')).toBeUndefined();
    expect(events.tokenOf(undefined)).toBeUndefined();
    expect(events.allows('bearer  first-token')).toBe(true);
  });

  it('caps the open streams of each token, apart from the others, and frees a place when one closes', () => {
    const events = new RevocationEvents(source, ['a', 'b'], 2);
    const open = [response(), response()];
    for (const res of open) events.stream(request, res, [], 0);
    expect(events.hasRoomFor(0)).toBe(false);
    expect(events.hasRoomFor(1)).toBe(true);
    open[0].emit('close');
    expect(events.hasRoomFor(0)).toBe(true);
    open[1].emit('close');
    events.endAll();
  });
});
