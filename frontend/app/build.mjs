// Build the app page's scripts and stylesheet into the Voila template's static folder, with the
// licences of every package bundled (sdcsession-app.LICENSES.txt).
//
//   cd frontend/app && npm ci && node build.mjs
//
// sdcsession-app.js (the entry, an ES module: the kernel connection) imports the widget code
// (sdcsession-widgets-<hash>.js) on demand, so the kernel serializes the widgets' state while
// the browser evaluates the widget code; modules both use go to sdcsession-chunk-<hash>.js.
// The template links the entry and the stylesheet with a content hash (?v=); the other
// chunks carry theirs in their names.
import * as esbuild from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const out = path.resolve(here, '../../sdcsession/present/workbench/jupyter/voila/templates/sdcsession/static');

for (const name of fs.existsSync(out) ? fs.readdirSync(out) : []) {
  if (name.startsWith('sdcsession-')) {
    fs.rmSync(path.join(out, name));  // chunks of an earlier build
  }
}
const result = await esbuild.build({
  entryPoints: { 'sdcsession-app': path.join(here, 'src/index.js') },
  bundle: true,
  minify: true,
  format: 'esm',
  splitting: true,
  target: 'es2020',
  define: { 'process.env.NODE_ENV': '"production"' },
  // descriptions with HTML are escaped, not sanitized (src/sanitize.js)
  alias: { 'sanitize-html': path.join(here, 'src/sanitize.js') },
  loader: { '.svg': 'dataurl', '.woff': 'dataurl', '.woff2': 'dataurl' },
  legalComments: 'none',
  outdir: out,
  chunkNames: 'sdcsession-[name]-[hash]',
  metafile: true,
  logLevel: 'info'
});

const packages = new Map();
for (const output of Object.values(result.metafile.outputs)) {
  for (const input of Object.keys(output.inputs)) {
    const m = input.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/);
    if (m && !packages.has(m[1])) {
      const dir = path.join(here, 'node_modules', m[1]);
      const meta = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
      const file = fs.readdirSync(dir).find((f) => /^(licen[cs]e|copying)/i.test(f));
      const text = file ? fs.readFileSync(path.join(dir, file), 'utf8').trim() : '';
      packages.set(m[1], { version: meta.version, license: meta.license, text });
    }
  }
}
const parts = [
  'Third-party software in the sdcsession-*.js and sdcsession-app.css files beside this one',
  '(built by frontend/app/build.mjs from the npm packages below), with their licences.',
  ''
];
for (const [name, p] of [...packages].sort()) {
  parts.push('='.repeat(78), `${name} ${p.version} (${p.license})`, '='.repeat(78));
  parts.push(p.text || `Licensed under ${p.license}; no licence file in the package.`, '');
}
fs.writeFileSync(path.join(out, 'sdcsession-app.LICENSES.txt'), parts.join('\n'));
console.log(`${packages.size} packages bundled; licences in sdcsession-app.LICENSES.txt`);
