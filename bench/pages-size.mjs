// What each hosted page loads, as the gateway sends it: node bench/pages-size.mjs (after npm run
// build, which makes apps/web/dist). The budgets are held by test/repo/pages.test.ts.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

const dist = path.resolve(import.meta.dirname, '../apps/web/dist');
if (!fs.existsSync(path.join(dist, 'signin.html'))) {
  console.error('no build in apps/web/dist: run npm run build first');
  process.exit(1);
}
const size = (file) => {
  const body = fs.readFileSync(path.join(dist, file));
  return { raw: body.length, gzip: zlib.gzipSync(body, { level: 9 }).length, br: zlib.brotliCompressSync(body).length };
};
console.log('page           kind  files  raw B  gzip B  brotli B');
for (const page of fs.readdirSync(dist).filter((f) => f.endsWith('.html')).sort()) {
  const html = fs.readFileSync(path.join(dist, page), 'utf8');
  const refs = [...html.matchAll(/(?:src|href)="\/(assets\/[^"]+)"/g)].map((m) => m[1]);
  for (const [kind, ext] of [['js', '.js'], ['css', '.css']]) {
    const files = refs.filter((r) => r.endsWith(ext)).map(size);
    const sum = (k) => files.reduce((s, f) => s + f[k], 0);
    console.log(`${page.padEnd(14)} ${kind.padEnd(5)} ${String(files.length).padStart(5)} ${String(sum('raw')).padStart(6)} ${String(sum('gzip')).padStart(7)} ${String(sum('br')).padStart(9)}`);
  }
}
