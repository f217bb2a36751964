// The auth service's error catalogue: every answer a client can get, with its code, status and words.
import { AppError, InternalHeaders, errors } from '@acct/shared';

const bad = (message: string) => errors.validation(message);

export const AuthErrors = {
  // The spec's validation messages, to the letter.
  registerMissing: () => bad('Please provide name, email and password'),
  nameLength: () => bad('Name must be 2-20 characters'),
  emailFormat: () => bad('Invalid email format'),
  loginMissing: () => bad('Please provide email and password'),
  otpMissing: () => bad('Please provide challenge_token and code'),
  otpFormat: () => bad('Code must be a 6 digit OTP'),
  adminForgotMissing: () => bad('Please provide email'),
  userForgotInvalid: () => bad('Please provide a valid email'),
  resetMissing: () => bad('Please provide token and newPassword'),
  // Decisions of DESIGN.md for what the spec leaves open.
  passwordPolicy: () => bad('Password must be 8-128 characters'),
  invalidCredentials: () => new AppError('invalid_credentials', 401, 'Invalid credentials'),
  accountDisabled: () => new AppError('account_disabled', 403, 'Account is disabled'),
  emailTaken: () => new AppError('email_taken', 409, 'Email already registered'),
  adminRegistrationClosed: () => new AppError('admin_registration_closed', 403, 'Admin registration is closed'),
  invalidChallenge: () => new AppError('invalid_challenge', 401, 'Invalid or expired challenge token'),
  sessionRevoked: () => new AppError('session_revoked', 401, 'Session expired or revoked'),
  invalidCode: () => new AppError('invalid_otp', 401, 'Invalid code'),
  refreshMissing: () => new AppError('refresh_token_missing', 401, 'Refresh token missing'),
  refreshInvalid: () =>
    new AppError('refresh_token_invalid', 401, 'Invalid or expired refresh token', {
      headers: { [InternalHeaders.clearRefreshToken]: '1' },
    }),
  resetInvalid: () => new AppError('reset_token_invalid', 400, 'Invalid or expired reset token'),
  rateLimited: (retryAfterSeconds: number) => errors.rateLimited(retryAfterSeconds),
};
