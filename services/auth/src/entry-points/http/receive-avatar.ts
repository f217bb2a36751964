// Reads an avatar upload (one file in the multipart field `avatar`, at most AVATAR_MAX_BYTES) into
// `req.file`, for the admin's and the owner's replacement alike; each way it can be wrong is a 4xx.
import type { Request, Response } from 'express';
import type multerLibrary from 'multer';
import { AVATAR_MAX_BYTES } from '../../domain/account/avatar';
import { AuthErrors } from '../../errors';

// Made at the first upload (multer and busboy are not held by a process that never receives one).
let reader: ReturnType<ReturnType<typeof multerLibrary>['single']> | undefined;
function upload(): NonNullable<typeof reader> {
  if (!reader) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const multer = require('multer') as typeof multerLibrary;
    reader = multer({ storage: multer.memoryStorage(), limits: { fileSize: AVATAR_MAX_BYTES, files: 1, fields: 5 } }).single('avatar');
  }
  return reader;
}

export function receiveAvatar(req: Request, res: Response): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (!req.is('multipart/form-data')) return reject(AuthErrors.avatarNotMultipart());
    upload()(req, res, (err?: unknown) => {
      if (!err) return resolve();
      const code = (err as { code?: string }).code;
      if (code === 'LIMIT_FILE_SIZE') return reject(AuthErrors.avatarTooLarge());
      if (code === 'LIMIT_UNEXPECTED_FILE' || code === 'LIMIT_FILE_COUNT') return reject(AuthErrors.avatarOneFile());
      return reject(AuthErrors.malformedMultipart());
    });
  });
}
