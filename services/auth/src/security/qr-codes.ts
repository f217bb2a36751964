// QR images through `qrcode`, behind the domain's QrCodes port.
import QRCode from 'qrcode';
import type { QrCodes } from '../domain/ports';

export class PngQrCodes implements QrCodes {
  dataUrl(text: string): Promise<string> {
    return QRCode.toDataURL(text);
  }
}
