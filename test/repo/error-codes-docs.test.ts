// The error codes of docs/errors.md are the catalogues' (npm run docs:errors writes them).
import fs from 'node:fs';
import path from 'node:path';
import { errorCodeTable } from '@acct/shared';
import { authErrorCatalogue, identityRedirectErrorTable, identityRedirectErrors } from '@acct/auth';
import { desktopErrorCatalogue } from '@acct/desktop';
import { gatewayErrorCatalogue } from '@acct/gateway';

const readme = fs.readFileSync(path.resolve(__dirname, '..', '..', 'docs', 'errors.md'), 'utf8');

describe('the documented error codes', () => {
  it('lists exactly the codes of the catalogues, with their status and meaning', () => {
    const block = /<!-- error-codes:start[^>]*-->\n([\s\S]*?)\n<!-- error-codes:end -->/.exec(readme)?.[1];
    expect(block).toBe(errorCodeTable({ gateway: gatewayErrorCatalogue, auth: authErrorCatalogue, desktop: desktopErrorCatalogue }));
  });

  it('lists exactly the codes a provider\'s callback redirects with, and the OpenAPI file names each', () => {
    const block = /<!-- identity-redirect-errors:start[^>]*-->\n([\s\S]*?)\n<!-- identity-redirect-errors:end -->/.exec(readme)?.[1];
    expect(block).toBe(identityRedirectErrorTable());
    const openapi = fs.readFileSync(path.resolve(__dirname, '..', '..', 'openapi', 'openapi.yaml'), 'utf8');
    expect(Object.keys(identityRedirectErrors).filter((code) => !openapi.includes(`\`${code}\``))).toEqual([]);
  });

  it('gives every code one status, whichever service answers it', () => {
    const statuses = new Map<string, number>();
    for (const catalogue of [gatewayErrorCatalogue, authErrorCatalogue, desktopErrorCatalogue]) {
      for (const [code, spec] of Object.entries(catalogue.codes)) {
        expect([code, statuses.get(code) ?? spec.status]).toEqual([code, spec.status]);
        statuses.set(code, spec.status);
      }
    }
  });
});
