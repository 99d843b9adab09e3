// The API explorer: Swagger UI over Roost's own OpenAPI document. Calls go to the server that served
// this page (the document's servers list names the addresses WildFly listens on, which a browser
// behind a load balancer or a port mapping may not reach).
(async function () {
  const base = new URL('..', window.location.href);
  const response = await fetch(new URL('openapi?format=JSON', base));
  const doc = await response.json();
  doc.servers = [{ url: base.href.replace(/\/$/, '') }];
  window.ui = SwaggerUIBundle({
    spec: doc,
    dom_id: '#explorer',
    deepLinking: true,
    tryItOutEnabled: true,
    persistAuthorization: false,
    displayRequestDuration: true,
    filter: true,
    docExpansion: 'none',
    defaultModelsExpandDepth: 0
  });
})();
