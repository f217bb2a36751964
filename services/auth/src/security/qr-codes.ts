// QR images through `qrcode`, behind the domain's QrCodes port; loaded at the first enrolment of an
// authenticator app, not by every process at start.
import type QRCodeLibrary from 'qrcode';
import type { QrCodes } from '../domain/factors/ports';

let library: typeof QRCodeLibrary | undefined;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const qrcode = () => (library ??= require('qrcode') as typeof QRCodeLibrary);

/**
 * Each row filtered by Paeth alone: pngjs's default tries all five filters on every row to keep the
 * smallest, which for a QR code's black and white rows costs twice the CPU for 2 % fewer bytes
 * (an enrolment's image: 10.4 to 13.5 ms of CPU and 4,330 characters by default, 5.3 to 6.5 ms and
 * 4,410 so; the pixels are the same, test/qr-codes.test.ts).
 */
const OPTIONS = { rendererOpts: { filterType: 4 } } as QRCodeLibrary.QRCodeToDataURLOptions;

export class PngQrCodes implements QrCodes {
  dataUrl(text: string): Promise<string> {
    return qrcode().toDataURL(text, OPTIONS);
  }
}
