// Placeholder replaced by the full OpenAPI 3.1 document.
export function openApiDocument(version) {
  return { openapi: '3.1.0', info: { title: 'shield control plane', version }, paths: {} };
}
