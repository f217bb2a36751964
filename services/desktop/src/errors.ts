// The desktop service's error catalogue.
import { AppError, errors } from '@acct/shared';

export const DesktopErrors = {
  platformMissing: () => errors.validation('Please provide platform'),
  platformUnknown: () => errors.validation('Unknown platform: use win32, darwin or linux'),
  noRelease: () => new AppError('no_release', 404, 'No release published for this platform'),
  authRequired: () => new AppError('unauthorized', 401, 'Authentication required'),
  userOnly: () => new AppError('forbidden', 403, 'Only user sessions can sync'),
  deviceInvalid: () => errors.validation('Please provide device id, platform and appVersion'),
  cursorInvalid: () => errors.validation('Invalid cursor'),
  changesInvalid: () => errors.validation('Each change needs a key, a value and updatedAt'),
  changeInFuture: () => errors.validation('A change is dated more than a day ahead'),
  tooManyChanges: (max: number) => new AppError('payload_too_large', 413, `Too many changes in one sync (at most ${max})`),
  valueTooLarge: (max: number) => new AppError('payload_too_large', 413, `A change value is too large (at most ${max} bytes)`),
};
