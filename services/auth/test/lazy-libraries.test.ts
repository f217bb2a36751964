// Libraries that serve one rarely used feature (passkeys, an authenticator app's QR code, an avatar
// upload) are loaded at the feature's first use, not by every auth process at start: a process that
// never sees one does not hold its modules (bench/RESULTS.md, issue 50 item 4). Loads the built
// composition root in a fresh process and reads which packages it brought in.
import { execFileSync } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(__dirname, '..', '..', '..');
// oidc-provider too: only a deployment with OPENID_PROVIDER on loads it.
const LAZY = ['@simplewebauthn/server', 'qrcode', 'multer', 'busboy', 'oidc-provider'];

/** The packages a fresh node process holds after running `script` in the built auth service's folder. */
function packagesLoadedBy(script: string): { loaded: string[]; answer: unknown } {
  const probe = `(async () => {
const answer = await (async () => { ${script} })();
const names = new Set(Object.keys(require.cache).map((file) => /node_modules\\/((?:@[^/]+\\/)?[^/]+)/.exec(file)?.[1]).filter(Boolean));
process.stdout.write(JSON.stringify({ loaded: [...names], answer }));
})();`;
  return JSON.parse(execFileSync(process.execPath, ['-e', probe], { cwd: path.join(root, 'services', 'auth'), encoding: 'utf8' }));
}

describe("auth's start", () => {
  it('does not load the libraries of passkeys, QR codes and uploads', () => {
    const { loaded } = packagesLoadedBy(`require('./dist/server.js');`);
    expect(loaded).toEqual(expect.arrayContaining(['mongoose', 'ioredis', 'express']));
    expect(LAZY.filter((name) => loaded.includes(name))).toEqual([]);
  });

  it('loads a feature\'s library when the feature is first used, and the feature works', () => {
    const { loaded, answer } = packagesLoadedBy(`
      require('./dist/server.js');
      const { PngQrCodes } = require('./dist/security/qr-codes.js');
      const { SimpleWebAuthnCeremonies } = require('./dist/security/webauthn-ceremonies.js');
      const qr = await new PngQrCodes().dataUrl('otpauth://totp/Example:a@example.com?secret=JBSWY3DPEHPK3PXP');
      const options = await new SimpleWebAuthnCeremonies().authenticationOptions({ rpId: 'example.com', rpName: 'Example', origins: ['https://example.com'] }, {});
      return { qr: qr.slice(0, 22), challenge: typeof options.challenge, userVerification: options.userVerification };`);
    expect(answer).toEqual({ qr: 'data:image/png;base64,', challenge: 'string', userVerification: 'required' });
    expect(loaded).toEqual(expect.arrayContaining(['@simplewebauthn/server', 'qrcode']));
  });
});
