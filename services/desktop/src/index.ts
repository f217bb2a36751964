export { createApp, type DesktopDeps } from './create-app';
export { desktopSchema, loadDesktopConfig, type DesktopConfig } from './config';
export { startDesktop } from './server';
export { ReleaseRepository, PLATFORMS } from './data-access/release-repository';
export { parseReleaseCommand } from './release-cli';
