/* global document, SwaggerUIBundle */
// The API reference: Swagger UI (bundled locally) over the OpenAPI document the server serves.
(function () {
  const el = document.getElementById('swagger-ui');
  if (!el || typeof SwaggerUIBundle === 'undefined') return;
  el.textContent = '';
  SwaggerUIBundle({
    url: el.dataset.spec,
    domNode: el,
    // No deep links: Swagger UI puts their anchors inside each operation's button (nested controls).
    deepLinking: false,
    docExpansion: 'list',
    defaultModelsExpandDepth: 0,
    // The reference reads; calls are made with a key, or from the account's playground.
    supportedSubmitMethods: [],
  });
})();
