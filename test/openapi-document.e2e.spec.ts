import { closeSharedApps } from './support/shared-app';
import './openapi-document/openapi-lint.cases';
import './openapi-document/openapi-descriptions.cases';
import './openapi-document/openapi-examples.cases';
import './openapi-document/openapi-example-ids.cases';
import './openapi-document/openapi-not-found-examples.cases';
import './openapi-document/openapi-integers.cases';
import './openapi-document/openapi-open-enums.cases';
import './openapi-document/openapi-event-types.cases';
import './openapi-document/openapi-closed-schemas.cases';
import './openapi-document/openapi-conformance.cases';
import './openapi-document/swagger-ui.cases';

/**
 * The served OpenAPI document as a contract: both linters pass it, every schema is described and every example fits
 * (ids of the shapes the server issues, each 404 its own resource's), integers and open enumerations are typed as the
 * spec says, events are typed by type, the conformance checker reads it closed and reaches every documented status, its
 * introduction reads in sections, and Swagger UI works from it in a real browser. One spec file, so the
 * service's modules load once for all of them (test/support/shared-app.ts); cases that read only their own firms and
 * the document share an app per configuration, the two with a recordings folder of their own start their own.
 */
afterAll(closeSharedApps);
