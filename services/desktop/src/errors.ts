// The desktop service's error catalogue: the base codes plus its own, and every error it raises.
import { errorCatalogue, errors } from '@acct/shared';

export const desktopErrorCatalogue = errorCatalogue({
  no_release: { status: 404, meaning: 'No release of the desktop app is published for this platform yet.' },
  release_exists: { status: 409, meaning: 'That platform and version were published before (a withdrawn version is not published again: publish a newer one).' },
  release_not_found: { status: 404, meaning: 'No published release of that platform and version to withdraw.' },
  sync_cursor_ahead: {
    status: 409,
    meaning: 'The sync cursor is ahead of anything the server has (server data restored or reset, or a cursor of another account): sync again from cursor `"0"`, sending local changes again.',
  },
});

const bad = (message: string) => errors.validation(message);

export const DesktopErrors = {
  platformMissing: () => bad('Please provide platform'),
  platformUnknown: () => bad('Unknown platform: use win32, darwin or linux'),
  noRelease: () => desktopErrorCatalogue.error('no_release', 'No release published for this platform'),
  authRequired: () => errors.unauthorized(),
  userOnly: () => errors.forbidden('Only user sessions can sync'),
  adminOnly: () => errors.forbidden('Only administrators manage releases'),
  releaseInvalid: (problem: string) => bad(problem),
  releaseExists: () => desktopErrorCatalogue.error('release_exists', 'That version is already published for this platform'),
  releaseNotFound: () => desktopErrorCatalogue.error('release_not_found', 'No published release of that version for this platform'),
  deviceInvalid: () => bad('Please provide device id, platform and appVersion'),
  cursorInvalid: () => bad('Invalid cursor'),
  cursorAhead: () => desktopErrorCatalogue.error('sync_cursor_ahead', 'Cursor is ahead of the server: start over with cursor 0'),
  changesInvalid: () => bad('Each change needs a key, a value and updatedAt'),
  changeInFuture: () => bad('A change is dated more than a day ahead'),
  tooManyChanges: (max: number) => errors.tooLarge(`Too many changes in one sync (at most ${max})`),
  valueTooLarge: (max: number) => errors.tooLarge(`A change value is too large (at most ${max} bytes)`),
};
