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

  it('resumes a follower from its Last-Event-ID: later endings replayed in order, one that lands during the replay sent once, earlier ones not again', () => {
    const entry = (id: string) => ({ id, sids: [`s-${id}`], until: 0 });
    const held = [entry('1-0'), entry('2-0'), entry('3-0')];
    let listener: ((e: ReturnType<typeof entry>) => void) | undefined;
    const live = {
      freshAsOfMs: 0,
      subscribe: (l: typeof listener) => ((listener = l), () => undefined),
      entriesAfter: (id?: string) => {
        // An ending lands while the replay is read: the subscription queues it.
        listener?.(entry('4-0'));
        // …and one the replay itself holds arrives on the subscription too.
        listener?.(entry('3-0'));
        return held.filter((e) => !id || Number(e.id.split('-')[0]) > Number(id.split('-')[0]));
      },
    };
    const events = new RevocationEvents(live as never, ['a'], 2);
    const res = response();
    events.stream({ headers: { 'last-event-id': '1-0' } } as unknown as http.IncomingMessage, res, [], 0);
    listener?.(entry('5-0'));
    const sent = (res.write as jest.Mock).mock.calls.map(([text]) => /^id: (\S+)/.exec(text as string)?.[1]).filter(Boolean);
    expect(sent).toEqual(['2-0', '3-0', '4-0', '5-0']);
    res.emit('close');
  });

  it('vouches only for as fresh as the gateway’s own view is: a gateway that lost Redis sends its last good time, not now', () => {
    const lost = { ...source, freshAsOfMs: Date.now() - 60_000 };
    const events = new RevocationEvents(lost, ['a']);
    const res = response();
    events.stream(request, res, [], 0);
    const heartbeat = (res.write as jest.Mock).mock.calls.map(([text]) => text as string).find((text) => text.startsWith('event: heartbeat'));
    expect(heartbeat).toBe(`event: heartbeat\ndata: ${JSON.stringify({ freshAsOf: lost.freshAsOfMs })}\n\n`);
    res.emit('close');
  });
});
