import { Injectable } from '@nestjs/common';
import { Eta } from 'eta';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { escapeHtml, escapeShown, hasBidiControls, timeIn } from './console-text.js';
import { CONSOLE_PATH } from './console-tokens.js';

/**
 * Where a shipped folder is: looked for upward from the running script (dist/src/... of the service or CLI) and from
 * the working folder (tests, the image's /app), as each of `relatives` (the sources' path, the build's path).
 */
export function findFolder(relatives: string[], mustHold: string): string {
  const starts = [process.argv[1] ? dirname(resolve(process.argv[1])) : null, process.cwd()].filter((d): d is string => d !== null);
  for (const start of starts) {
    for (let d = start; ; d = dirname(d)) {
      for (const relative of relatives) if (existsSync(join(d, relative, mustHold))) return join(d, relative);
      if (dirname(d) === d) break;
    }
  }
  throw new Error(`${relatives.join(' or ')} (holding ${mustHold}) not found above ${starts.join(' or ')}`);
}

/** The console's own files: templates (views/) and browser files (assets/); copied to dist/src/console/ui by the build. */
export const consoleUiFolder = () => findFolder(['console/ui', 'src/console/ui'], 'views/layout.eta');
/** uPlot's browser build, served as it ships. */
export const uplotFolder = () => findFolder(['node_modules/uplot/dist'], 'uPlot.iife.min.js');

/** What every template may call; a page of a session replaces `at` with its firm's time (console-pages.service.ts). */
const VIEW_HELPERS = { at: timeIn('UTC'), attr: escapeHtml, hasBidiControls, path: CONSOLE_PATH };

/**
 * The console's pages: Eta templates, server-rendered. Every `<%= %>` is HTML-escaped with the bidirectional controls
 * shown (console-text.ts, escapeShown), so untrusted text (a receiver's answer, a description) is shown as text and
 * cannot reorder the page; the templates use `<%~ %>` (raw) only for the layout's body, which is itself a rendered
 * template, and for the edit form's fields through `it.attr` (escaped as they are, so saving keeps them).
 */
@Injectable()
export class ConsoleViews {
  private readonly eta = new Eta({
    views: join(consoleUiFolder(), 'views'),
    cache: true,
    autoEscape: true,
    escapeFunction: escapeShown,
  });

  render(view: string, data: object): string {
    return this.eta.render(view, { ...VIEW_HELPERS, ...data });
  }
}
