// A secret shown once (an API key): text selected whole with one click, and a Copy button when scripts run.
import { html, type Html } from './html.js';

/** The script that adds the Copy button (src/web/assets), for the pages that show a key. */
export const KEY_ONCE_SCRIPTS = ['copy.js'] as const;

export const keyOnce = (key: string): Html =>
  html`<p class="key-once mono" data-copy="Copy the key" id="new-key">${key}</p>`;
