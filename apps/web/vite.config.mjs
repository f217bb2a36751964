// The pages, built to static files (dist/) that the gateway serves: one HTML file per page, hashed
// assets under dist/assets (cached for a year), no inline script (the pages' Content-Security-Policy
// allows scripts from the site only) and no module-preload polyfill (every supported browser has it).
import { resolve } from 'node:path';
import { defaultClientConditions, defineConfig } from 'vite';

export default defineConfig({
  root: import.meta.dirname,
  base: '/',
  // The workspace's client is bundled from its TypeScript source (its `source` export): the pages'
  // build needs no CommonJS step, and tree-shakes what a page does not call.
  resolve: { conditions: ['source', ...defaultClientConditions] },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    rollupOptions: {
      input: {
        signin: resolve(import.meta.dirname, 'signin.html'),
        account: resolve(import.meta.dirname, 'account.html'),
        admin: resolve(import.meta.dirname, 'admin.html'),
      },
    },
  },
});
