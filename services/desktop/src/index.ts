export { desktopSchema, loadDesktopConfig, type DesktopConfig } from './config';
export { desktopErrorCatalogue } from './errors';
export { startDesktop } from './server';
export { accountEventsQueue } from './entry-points/amqp/account-events';
export { ReleaseRepository } from './data-access/release-repository';
