// Server errors with MongoDB's numeric codes and code names, answered as `{ok: 0, code, codeName, errmsg}`.

export const ErrorCodes = {
  BadValue: 2,
  FailedToParse: 9,
  IllegalOperation: 20,
  NamespaceNotFound: 26,
  IndexNotFound: 27,
  CommandNotFound: 59,
  InvalidNamespace: 73,
  IndexOptionsConflict: 85,
  IndexKeySpecsConflict: 86,
  CursorNotFound: 43,
  NamespaceExists: 48,
  NotImplemented: 238,
  ImmutableField: 66,
  DuplicateKey: 11000,
} as const;

export type ErrorCodeName = keyof typeof ErrorCodes;

export class CommandError extends Error {
  readonly code: number;
  constructor(
    readonly codeName: ErrorCodeName,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
    this.code = ErrorCodes[codeName];
  }

  toReply(): Record<string, unknown> {
    return { ok: 0, errmsg: this.message, code: this.code, codeName: this.codeName, ...this.extra };
  }
}
