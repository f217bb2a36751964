export { notifierSchema, loadNotifierConfig, type NotifierConfig } from './config';
export { startNotifier, type NotifierOverrides } from './server';
export { LOGIN_PUSH } from './domain/notifications';
export { FcmPushSender, toFcmMessage, type PushSender, type PushNotification, type PushResult, type MulticastClient } from './domain/push-sender';
export type { Mail, Mailer } from './domain/mailer';
export { queueSpecs } from './entry-points/amqp/topology';
