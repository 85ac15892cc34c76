/* global document, fetch, location, Option, setTimeout, URLSearchParams */
// The Matching page (docs/web.md, "Matching"): reads the chosen file's first line only (its header, or a JSON line's
// keys) to offer and pre-fill the column of each field, estimates the rows from the first bytes, sends the file itself
// as the body of POST /api/v1/match/jobs (the browser streams it from disk), and moves running jobs' progress bars.
(function () {
  /** Bytes read to find the header and estimate the rows: enough for a wide header and a few hundred rows. */
  const HEAD_BYTES = 64 * 1024;
  /** How often a running job's progress is read: fresh enough to watch, a light load on the service. */
  const POLL_MS = 2000;
  /** Column names (lower case, words spaced) that hold each field, beyond the field's own name. */
  const SYNONYMS = {
    name: [
      'company',
      'company name',
      'business',
      'business name',
      'entity name',
      'legal name',
      'organization',
      'organisation',
      'account name',
      'corporation',
      'firm',
    ],
    city: ['town', 'principal city', 'locality', 'municipality'],
    zip: ['zip code', 'zipcode', 'postal code', 'postcode', 'postal', 'zip5'],
    address: ['street', 'street address', 'address 1', 'address line 1', 'address1', 'addr'],
    officer: ['officer name', 'contact', 'contact name', 'owner', 'owner name', 'principal', 'manager'],
    entity_type: ['type', 'company type', 'legal form', 'corp type'],
    document_number: ['document', 'doc number', 'document no', 'registration number', 'sunbiz number', 'filing number'],
    reference: ['ref', 'your reference', 'id', 'record id', 'customer id', 'account id', 'crm id'],
  };
  const num = (n) => Number(n).toLocaleString('en-US');
  const words = (s) =>
    s
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, ' ')
      .trim();

  /** The first record of a CSV text, quotes understood; null when the text holds no complete line. */
  function csvHeader(text) {
    const cells = [];
    let cell = '';
    let quoted = false;
    for (let i = 0; i < text.length; i++) {
      const c = text[i];
      if (quoted && c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = !quoted;
      else if (quoted) cell += c;
      else if (c === ',') {
        cells.push(cell);
        cell = '';
      } else if (c === '\n' || c === '\r') return { cells: [...cells, cell], end: i + 1 };
      else cell += c;
    }
    return null;
  }

  /** The file's columns and rows (counted when the head is the whole file, estimated from its lines otherwise). */
  async function inspect(file, format) {
    const whole = file.size <= HEAD_BYTES;
    const text = (await file.slice(0, HEAD_BYTES).text()).replace(/^\uFEFF/, '');
    let columns;
    let body = text;
    if (format === 'csv') {
      const header = csvHeader(whole ? `${text}\n` : text);
      if (!header) throw new Error('No header row found in the first bytes of the file.');
      columns = header.cells.map((c) => c.trim()).filter((c) => c !== '');
      body = text.slice(header.end);
    } else {
      const first = text.split('\n', 1)[0];
      let value;
      try {
        value = JSON.parse(first);
      } catch {
        throw new Error('The first line is not JSON: choose a CSV file or JSON lines.');
      }
      columns = value && typeof value === 'object' ? Object.keys(value) : [];
    }
    const lines = body.split('\n');
    if (!whole) lines.pop(); // cut short by the slice
    const full = lines.filter((l) => l.trim() !== '');
    if (whole) return { columns, rows: full.length, exact: true };
    const perLine = full.reduce((n, l) => n + l.length + 1, 0) / Math.max(1, full.length);
    return { columns, rows: Math.round((file.size - (text.length - body.length)) / perLine), exact: false };
  }

  function uploads(form) {
    const input = document.getElementById('match-file');
    const mapping = document.getElementById('match-mapping');
    const selects = Array.from(mapping.querySelectorAll('select'));
    const cost = document.getElementById('match-cost');
    const start = document.getElementById('match-start');
    const error = document.getElementById('match-error');
    const status = document.getElementById('match-status');
    const balance = Number(document.getElementById('match-balance').textContent.replace(/\D/g, ''));
    let chosen = null;

    const refuse = (message, details) => {
      error.replaceChildren(message);
      // A detail that only repeats the message (a file's refusal names its row in both) is said once.
      const more = Object.entries(details ?? {}).filter(([, why]) => why !== message);
      if (more.length) {
        const list = document.createElement('ul');
        for (const [field, why] of more) {
          const item = document.createElement('li');
          item.textContent = `${field}: ${why}`;
          list.append(item);
        }
        error.append(list);
      }
      error.hidden = false;
    };
    const formatOf = (file) =>
      /\.(jsonl|ndjson|json)$/i.test(file.name) || /ndjson|jsonl/.test(file.type) ? 'jsonl' : 'csv';

    input.addEventListener('change', async () => {
      error.hidden = true;
      status.textContent = '';
      start.disabled = true;
      mapping.hidden = true;
      cost.hidden = true;
      chosen = null;
      const file = input.files[0];
      if (!file) return;
      const format = formatOf(file);
      let seen;
      try {
        seen = await inspect(file, format);
      } catch (err) {
        refuse(err.message);
        return;
      }
      for (const select of selects) {
        const field = select.dataset.field;
        const names = [words(field), ...SYNONYMS[field]];
        const match = seen.columns.find((c) => names.includes(words(c)));
        const options = seen.columns.map((c) => new Option(c, c, false, c === match));
        select.replaceChildren(new Option('(none)', ''), ...options);
        select.value = match ?? '';
      }
      const rows = `${seen.exact ? '' : 'about '}${num(seen.rows)} row${seen.rows === 1 ? '' : 's'}`;
      const short = seen.rows > balance ? ` Your balance is ${num(balance)}: the job stops when it runs out.` : '';
      const credits = `${seen.exact ? '' : 'about '}${num(seen.rows)} credit${seen.rows === 1 ? '' : 's'}`;
      cost.textContent = `${rows}: ${credits}, one per row.${short}`;
      cost.hidden = false;
      mapping.hidden = false;
      start.disabled = false;
      chosen = { file, format };
    });

    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      if (!chosen) return;
      error.hidden = true;
      const query = new URLSearchParams();
      for (const select of selects) if (select.value) query.append(select.dataset.field, select.value);
      if (!query.has('name')) return refuse('Choose the column that holds the names.');
      query.append('file_name', chosen.file.name.slice(0, 200));
      start.disabled = true;
      status.textContent = `Sending ${chosen.file.name}…`;
      try {
        const res = await fetch(`/api/v1/match/jobs?${query}`, {
          method: 'POST',
          body: chosen.file,
          credentials: 'same-origin',
          headers: {
            'Content-Type': chosen.format === 'csv' ? 'text/csv' : 'application/x-ndjson',
            'X-CSRF-Token': form.dataset.csrf,
          },
        });
        if (res.status === 202) return location.assign('/account/matching?done=started#jobs');
        const answer = await res.json().catch(() => null);
        refuse(answer?.error?.message ?? `The service answered ${res.status}.`, answer?.error?.details);
      } catch (err) {
        refuse(`The upload failed: ${err.message}`);
      }
      status.textContent = '';
      start.disabled = false;
    });
  }

  /** Moves each queued or running job's row until the job ends. */
  function progress() {
    const announce = document.getElementById('jobs-status');
    const running = () =>
      Array.from(document.querySelectorAll('tr[data-job]')).filter((r) =>
        ['queued', 'running'].includes(r.dataset.status),
      );
    const show = (row, job) => {
      const bar = row.querySelector('progress');
      bar.max = job.total_rows;
      bar.value = job.done_rows;
      row.querySelector('[data-part="done"]').textContent = num(job.done_rows);
      row.querySelector('[data-part="matched"]').textContent = num(job.matched_rows);
      const pill = row.querySelector('[data-part="status"]');
      pill.textContent = job.status;
      pill.className = `pill ${{ completed: 'ok', failed: 'err', cancelled: '' }[job.status] ?? 'warn'}`;
      if (job.done_rows > 0) row.querySelector('[data-downloads]').hidden = false;
      if (job.status !== row.dataset.status && !['queued', 'running'].includes(job.status)) {
        row.querySelector('form[action$="/cancel"]')?.remove();
        if (job.error) {
          const why = document.createElement('span');
          why.className = 'hint field-error';
          why.textContent = job.error.message;
          pill.after(document.createElement('br'), why);
        }
        announce.textContent = `${job.file_name ?? job.id}: ${job.status}${job.error ? `, ${job.error.message}` : ''}.`;
      }
      row.dataset.status = job.status;
    };
    const tick = async () => {
      const rows = running();
      if (rows.length === 0) return;
      for (const row of rows) {
        const res = await fetch(`/account/matching/jobs/${row.dataset.job}`, {
          credentials: 'same-origin',
          headers: { Accept: 'application/json' },
        }).catch(() => null);
        if (!res) break; // the network: try again at the next tick
        // Signed out, or the job gone: the page's next load says so; nothing to move here.
        if (!res.ok || res.redirected) return;
        show(row, (await res.json()).data);
      }
      setTimeout(tick, POLL_MS);
    };
    setTimeout(tick, POLL_MS);
  }

  const form = document.getElementById('match-upload');
  if (form) uploads(form);
  progress();
})();
