// The one JSON shape of every response: `{success, message, data?}` or `{success: false, message, errors?}`.

export interface SuccessEnvelope<D = unknown> {
  success: true;
  message: string;
  data?: D;
}

export interface ErrorEnvelope {
  success: false;
  message: string;
  code?: string;
  errors?: Record<string, string>;
}

export function ok<D>(message: string, data?: D): SuccessEnvelope<D> {
  return data === undefined ? { success: true, message } : { success: true, message, data };
}

export function fail(message: string, code?: string, errors?: Record<string, string>): ErrorEnvelope {
  const body: ErrorEnvelope = { success: false, message };
  if (code) body.code = code;
  if (errors) body.errors = errors;
  return body;
}
