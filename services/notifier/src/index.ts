export { notifierSchema, loadNotifierConfig, type NotifierConfig } from './config';
export { startNotifier } from './server';
