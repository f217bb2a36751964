// @acct/shared/instrumentations: the official OpenTelemetry instrumentations of the libraries the
// services behind the gateway use (MongoDB, Redis, RabbitMQ, and http/undici where a service makes
// calls out). A separate entry, whose packages each of those services declares, so that the gateway,
// which traces by hand, neither loads nor ships them. Passed to startTracing as its `instrument`
// step: required only when tracing is on.
export interface InstrumentOptions {
  /** Also node:http and undici: for a service whose calls out should be spans (the notifier's to FCM). */
  http: boolean;
}

export function instrumentLibraries(options: InstrumentOptions): void {
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { registerInstrumentations } = require('@opentelemetry/instrumentation') as typeof import('@opentelemetry/instrumentation');
  const { HttpInstrumentation } = require('@opentelemetry/instrumentation-http') as typeof import('@opentelemetry/instrumentation-http');
  const { UndiciInstrumentation } = require('@opentelemetry/instrumentation-undici') as typeof import('@opentelemetry/instrumentation-undici');
  const { MongoDBInstrumentation } = require('@opentelemetry/instrumentation-mongodb') as typeof import('@opentelemetry/instrumentation-mongodb');
  const { IORedisInstrumentation } = require('@opentelemetry/instrumentation-ioredis') as typeof import('@opentelemetry/instrumentation-ioredis');
  const { AmqplibInstrumentation } = require('@opentelemetry/instrumentation-amqplib') as typeof import('@opentelemetry/instrumentation-amqplib');
  /* eslint-enable @typescript-eslint/no-require-imports */
  registerInstrumentations({
    instrumentations: [
      ...(options.http
        ? [
            // The health port's probes and scrapes are not traced.
            new HttpInstrumentation({ ignoreIncomingRequestHook: (req) => /^\/(health\/|metrics)/.test(req.url ?? '') }),
            new UndiciInstrumentation(),
          ]
        : []),
      // Statements with their values replaced (emails, hashes and tokens are values).
      new MongoDBInstrumentation({ enhancedDatabaseReporting: false }),
      new IORedisInstrumentation({ dbStatementSerializer: (command) => command }),
      new AmqplibInstrumentation(),
    ],
  });
}
