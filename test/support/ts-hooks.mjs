// Node module hooks (module.register) that let Jest's global setup import the TypeScript sources themselves, so
// the template database is migrated from migrations/ as they are now, with no build. The global setup runs outside
// Jest's module system: its transform applies to require() only and its moduleNameMapper not at all, so the
// sources' `./x.js` specifiers (ESM style, naming the compiled file) and their TypeScript both need these hooks.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { transformSync } from '@swc/core';
import { swcOptions } from './swc-options.mjs';

const root = new URL('../../', import.meta.url).href;
const ours = (url) => url?.startsWith(root) && !url.includes('/node_modules/');

/** `./x.js` imported by one of our .ts files names `./x.ts` when only that exists. */
export async function resolve(specifier, context, nextResolve) {
  const parent = context.parentURL;
  if (ours(parent) && parent.endsWith('.ts') && /^\.{1,2}\//.test(specifier) && specifier.endsWith('.js')) {
    const ts = new URL(specifier.replace(/\.js$/, '.ts'), parent);
    if (existsSync(ts)) return { url: ts.href, shortCircuit: true };
  }
  return nextResolve(specifier, context);
}

/** Our .ts files, compiled by SWC exactly as Jest compiles them (decorators and their metadata included). */
export async function load(url, context, nextLoad) {
  if (!ours(url) || !url.endsWith('.ts')) return nextLoad(url, context);
  const filename = fileURLToPath(url);
  const { code } = transformSync(readFileSync(filename, 'utf8'), { ...swcOptions, filename, sourceMaps: 'inline' });
  return { format: 'module', source: code, shortCircuit: true };
}
