// The platforms the desktop client is built for.
export const PLATFORMS = ['win32', 'darwin', 'linux'] as const;
export type Platform = (typeof PLATFORMS)[number];
export const isPlatform = (value: unknown): value is Platform => typeof value === 'string' && (PLATFORMS as readonly string[]).includes(value);
