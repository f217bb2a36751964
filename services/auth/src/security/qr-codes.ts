// QR images through `qrcode`, behind the domain's QrCodes port; loaded at the first enrolment of an
// authenticator app, not by every process at start.
import type QRCodeLibrary from 'qrcode';
import type { QrCodes } from '../domain/factors/ports';

let library: typeof QRCodeLibrary | undefined;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const qrcode = () => (library ??= require('qrcode') as typeof QRCodeLibrary);

export class PngQrCodes implements QrCodes {
  dataUrl(text: string): Promise<string> {
    return qrcode().toDataURL(text);
  }
}
