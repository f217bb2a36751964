// @acct/shared/amqp: the RabbitMQ client (amqplib) and the confirming event publisher.
export * from './client';
export * from './confirm';
export * from './event-publisher';
