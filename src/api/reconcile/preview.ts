// The preview service (v0.2, "Preview Service"): a small HTML card of one entity for OpenRefine's frame: name,
// status, type, filing date and principal address. Every value escaped; no script, no external asset; its one style
// block allowed by its hash in the Content-Security-Policy; no referrer sent (the page's address holds the credential).
import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { EntityDetail } from '../../search/index.js';
import { documentNumber } from '../params.js';

const STYLE =
  'body{font:13px/1.4 system-ui,sans-serif;margin:8px;color:#1b1f24}h1{font-size:15px;margin:0 0 6px}' +
  'dl{display:grid;grid-template-columns:max-content 1fr;gap:2px 10px;margin:0}dt{color:#57606a}dd{margin:0}';

const STYLE_HASH = createHash('sha256').update(STYLE).digest('base64');

/** `?id=`: the entity's document number, as the manifest's preview URL template fills it in. */
export const PreviewQuery = z.strictObject({ id: documentNumber });

export const PREVIEW_HEADERS = {
  'content-security-policy':
    `default-src 'none'; style-src 'sha256-${STYLE_HASH}'; base-uri 'none'; form-action 'none'; ` +
    // Framed by OpenRefine, wherever it runs (often http://127.0.0.1:3333).
    'frame-ancestors *',
  'referrer-policy': 'no-referrer',
  'cache-control': 'private, max-age=300',
} as const;

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escape = (s: string): string => s.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

/** An address on one line: its lines, city, state and postal code, blanks left out. */
export function addressLine(a: EntityDetail['principal_address']): string {
  if (!a) return '';
  const place = [a.city, [a.state, a.postal_code].filter(Boolean).join(' ')].filter(Boolean).join(', ');
  return [a.line1, a.line2, place].filter(Boolean).join(', ');
}

export function previewPage(e: EntityDetail): string {
  const rows: Array<[string, string]> = [
    ['Document number', e.document_number],
    ['Status', e.status_label],
    ['Type', e.entity_type ? `${e.entity_type_label} (${e.entity_type})` : e.entity_type_label],
    ['Filed', e.filing_date ?? ''],
    ['Principal address', addressLine(e.principal_address)],
  ];
  const list = rows.map(([k, v]) => `<dt>${escape(k)}</dt><dd>${escape(v || '—')}</dd>`).join('');
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escape(e.entity_name)}</title>` +
    `<style>${STYLE}</style></head><body><h1>${escape(e.entity_name)}</h1><dl>${list}</dl></body></html>`
  );
}
