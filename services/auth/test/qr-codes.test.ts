// The enrolment's QR image: a PNG data URL whose pixels are the ones qrcode draws by default, though
// its rows are filtered more cheaply (src/security/qr-codes.ts says why).
import QRCode from 'qrcode';
import { PNG } from 'pngjs';
import { PngQrCodes } from '../src/security/qr-codes';

const URI = 'otpauth://totp/Northwind:someone%40example.com?secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP&issuer=Northwind';
const decode = (dataUrl: string) => PNG.sync.read(Buffer.from(dataUrl.replace(/^data:image\/png;base64,/, ''), 'base64'));

describe('PngQrCodes', () => {
  it('draws the same image as qrcode by default, in about as many bytes', async () => {
    const mine = await new PngQrCodes().dataUrl(URI);
    const theirs = await QRCode.toDataURL(URI);
    expect(mine).toMatch(/^data:image\/png;base64,/);
    const [a, b] = [decode(mine), decode(theirs)];
    expect([a.width, a.height]).toEqual([b.width, b.height]);
    expect(a.data.equals(b.data)).toBe(true);
    expect(mine.length).toBeLessThan(theirs.length * 1.1);
  });

  it('draws a different image for a different secret', async () => {
    const other = await new PngQrCodes().dataUrl(URI.replace('JBSWY3DP', 'KRSXG5CT'));
    expect(decode(other).data.equals(decode(await new PngQrCodes().dataUrl(URI)).data)).toBe(false);
  });
});
