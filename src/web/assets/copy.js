/* global document, navigator */
// A Copy button beside a secret shown once ([data-copy]). Without scripts, or without a clipboard (plain http on
// another host), the secret stays what it is: text selected whole with one click.
(function () {
  if (!navigator.clipboard) return;
  for (const el of document.querySelectorAll('[data-copy]')) {
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'secondary small';
    button.textContent = el.dataset.copy || 'Copy';
    const status = document.createElement('span');
    status.setAttribute('role', 'status');
    status.className = 'hint copy-status';
    button.addEventListener('click', () => {
      navigator.clipboard.writeText(el.textContent.trim()).then(
        () => (status.textContent = 'Copied.'),
        () => (status.textContent = 'Could not copy: select the key and copy it.'),
      );
    });
    el.after(button, status);
  }
})();
