export { notifierSchema, loadNotifierConfig, type NotifierConfig } from './config';
export { startNotifier, type NotifierOverrides } from './server';
export { LOGIN_PUSH } from './domain/notifications';
export type { Mail, Mailer, PushNotification, PushResult, PushSender } from './domain/ports';
export { FcmPushSender, type MulticastClient } from './transports/push-sender';
export { queueSpecs } from './entry-points/amqp/topology';
