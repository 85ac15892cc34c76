/* global document, fetch, URLSearchParams, performance */
// The playground: shows the chosen operation's parameters and runs it through the same-origin proxy
// (/api/v1) with the session cookie and the page's CSRF token, then shows the answer.
(function () {
  const form = document.getElementById('playground');
  if (!form) return;
  const select = document.getElementById('pg-operation');
  const status = document.getElementById('pg-status');
  const output = document.getElementById('pg-output');
  const sets = Array.from(form.querySelectorAll('fieldset.pg-op'));
  const current = () => sets.find((s) => s.dataset.op === select.value);
  select.addEventListener('change', () => {
    for (const s of sets) s.hidden = s !== current();
  });
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const set = current();
    let path = set.dataset.path;
    const query = new URLSearchParams();
    for (const el of set.querySelectorAll('input, select')) {
      const value = el.value.trim();
      if (value === '') continue;
      if (el.dataset.in === 'path') path = path.replace(`{${el.name}}`, encodeURIComponent(value));
      else query.append(el.name, value);
    }
    if (/\{\w+\}/.test(path)) {
      status.textContent = 'Fill in the required path parameter.';
      return;
    }
    const url = `/api/v1${path}${query.size ? `?${query}` : ''}`;
    status.textContent = `GET ${url} …`;
    const started = performance.now();
    try {
      const res = await fetch(url, { headers: { 'X-CSRF-Token': form.dataset.csrf }, credentials: 'same-origin' });
      const text = await res.text();
      const ms = Math.round(performance.now() - started);
      const remaining = res.headers.get('x-ratelimit-remaining');
      status.textContent =
        `${res.status} in ${ms} ms · GET ${url}` + (remaining ? ` · ${remaining} left this minute` : '');
      try {
        output.textContent = JSON.stringify(JSON.parse(text), null, 2);
      } catch {
        output.textContent = text;
      }
    } catch (err) {
      status.textContent = `The request failed: ${err}`;
    }
  });
})();
