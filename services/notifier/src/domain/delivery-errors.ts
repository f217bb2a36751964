// How a failed send is treated: transient failures are retried with back-off, permanent ones and
// invalid input go to the dead-letter queue at once.
export class PermanentDeliveryError extends Error {
  override name = 'PermanentDeliveryError';
}

export class TransientDeliveryError extends Error {
  override name = 'TransientDeliveryError';
}

export const isPermanent = (err: unknown) => err instanceof PermanentDeliveryError;
