// The outbox keeps the trace context of the request that wrote an event, so that a publish by the
// relay loop, long after the request and outside it, continues the request's trace.
import mongoose, { type Connection } from 'mongoose';
import { context, propagation, trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { createMemoryLogger, type EventType, type Publisher } from '@acct/shared';
import { Outbox } from '@acct/shared/mongo';
import { isolatedNames, testUrls } from '@acct/test-harness/isolation';

let connection: Connection;
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(new InMemorySpanExporter())] });
beforeAll(async () => {
  trace.setGlobalTracerProvider(provider);
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  connection = await mongoose.createConnection(testUrls().mongo, { dbName: isolatedNames('outboxtrace').mongoDb }).asPromise();
});
afterAll(async () => {
  await connection.dropDatabase();
  await connection.close();
  trace.disable();
  context.disable();
  propagation.disable();
});

/** Records the trace context active when each event is published, as the amqplib instrumentation would read it. */
class TracePublisher implements Publisher {
  readonly seen: Array<{ type: EventType; traceparent?: string }> = [];
  async publish(type: EventType): Promise<void> {
    const carrier: Record<string, string> = {};
    propagation.inject(context.active(), carrier);
    this.seen.push({ type, traceparent: carrier.traceparent });
  }
}

describe('outbox trace context', () => {
  it('when the relay publishes an event later, then it is published in the trace of the request that wrote it', async () => {
    const outbox = new Outbox(connection, createMemoryLogger().logger, { pollMs: 50 });
    const publisher = new TracePublisher();
    // Written inside a request's span while no relay runs (the broker was away): stored, not published.
    const span = trace.getTracer('test').startSpan('POST /api/auth/user/login');
    await context.with(trace.setSpan(context.active(), span), () => outbox.add('user.login.succeeded', { userId: 'u1', ip: '127.0.0.1' }));
    span.end();
    const traceId = span.spanContext().traceId;
    // The relay starts later, outside any request.
    outbox.start(publisher);
    try {
      const deadline = Date.now() + 5_000;
      while (publisher.seen.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(publisher.seen).toEqual([{ type: 'user.login.succeeded', traceparent: expect.stringMatching(new RegExp(`^00-${traceId}-[0-9a-f]{16}-0[01]$`)) }]);
    } finally {
      await outbox.stop();
    }
  });

  it('when an event is written outside any trace, then it is published without one', async () => {
    const outbox = new Outbox(connection, createMemoryLogger().logger, { pollMs: 50 });
    const publisher = new TracePublisher();
    await outbox.add('user.login.succeeded', { userId: 'u2', ip: '127.0.0.1' });
    outbox.start(publisher);
    try {
      const deadline = Date.now() + 5_000;
      while (publisher.seen.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(publisher.seen).toEqual([{ type: 'user.login.succeeded', traceparent: undefined }]);
    } finally {
      await outbox.stop();
    }
  });
});
