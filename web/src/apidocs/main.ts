// The operators' API page (`api-docs.html`, served by `easel serve` at
// /api/docs): RapiDoc's <rapi-doc> element over GET /api/openapi.json. The
// element is bundled from npm with the rest of the app, so the page needs no
// outside origin (offline installs keep it).
import 'rapidoc';
