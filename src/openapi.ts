import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import { API_KEY_SECURITY } from './common/http/access.decorators.js';
import { documentResponseExamples } from './common/http/openapi-examples.js';
import { documentResponseHeaders } from './common/http/openapi-headers.js';
import { Problem, ProblemFieldError } from './common/http/openapi.decorators.js';
import type { AppConfig } from './config/app-config.js';
import { documentRequestBodies } from './common/validation/body-rules.js';
import { EVENT_DATA_MODELS, EVENT_RETENTION_TEXT, eventSchemas, eventWebhooks } from './events/index.js';
import { LINK_LIFETIME_ADJECTIVE } from './recordings/index.js';
import { documentErrorCodes } from './openapi-errors.js';
import { API_INTRODUCTION } from './openapi-introduction.js';
import { EndpointDisabledProblem } from './webhooks/index.js';

const TAGS: [string, string][] = [
  ['Calls', 'Calls the receptionist answered, with their transcripts.'],
  ['Recordings', `Call recordings: download with a key, or play through a ${LINK_LIFETIME_ADJECTIVE} link.`],
  ['Leads', 'Prospective clients captured on calls, and the firm’s status on each.'],
  ['Account', 'The firm’s account, setup status and the calling key.'],
  ['Receptionist', 'The published receptionist settings (read-only).'],
  [
    'Events',
    `Every event of the last ${EVENT_RETENTION_TEXT}, as sent to webhook endpoints. After a database failover, an \`after\` the log lost answers \`after_lost\` with \`restart_after\`, the event to resume after.`,
  ],
  ['Webhooks', 'Webhook endpoints and deliveries; the webhooks section describes each event payload.'],
  ['Test helpers', 'Test mode only: simulate calls and their re-processing to build an integration without a real phone call.'],
  ['Health', 'Whether the API is serving.'],
];

export function buildOpenApiDocument(app: INestApplication, config: AppConfig): OpenAPIObject {
  const builder = new DocumentBuilder()
    .setOpenAPIVersion('3.1.0')
    .setTitle('Receptionist API')
    .setVersion('1')
    .setDescription(API_INTRODUCTION)
    .setContact('API support', 'https://example.com/support', 'support@example.com')
    .setLicense('Proprietary', 'https://example.com/terms')
    // Without BASE_URL a relative server, so Swagger UI's "Try it out" works from whatever host name opened the page.
    .addServer(config.baseUrlGiven ? config.baseUrl : '/')
    .addBearerAuth(
      {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'svc_live_ or svc_test_ API key (opaque)',
        description: 'An API key: svc_live_... (live data) or svc_test_... (test-mode data); opaque, not a JWT.',
      },
      API_KEY_SECURITY,
    );
  for (const [name, description] of TAGS) builder.addTag(name, description);
  const doc = SwaggerModule.createDocument(app, builder.build(), {
    extraModels: [Problem, ProblemFieldError, EndpointDisabledProblem, ...EVENT_DATA_MODELS],
  });
  // One envelope per event type, from the one schema the DTO produced; EventDto becomes their union.
  Object.assign(doc.components!.schemas!, eventSchemas(doc.components!.schemas!.EventDto as Parameters<typeof eventSchemas>[0]));
  documentErrorCodes(doc);
  documentRequestBodies(doc);
  documentResponseHeaders(doc);
  documentResponseExamples(doc);
  return { ...doc, webhooks: eventWebhooks() } as OpenAPIObject;
}

/**
 * Swagger UI and the document's JSON and YAML routes. The document is built on its first request (Nest's document
 * factory), not at boot: a process that never serves it (a worker, most api processes) skips about 0.1 s of CPU.
 */
export function mountOpenApi(app: INestApplication, config: AppConfig): void {
  SwaggerModule.setup('docs', app, () => buildOpenApiDocument(app, config), {
    jsonDocumentUrl: 'v1/openapi.json',
    yamlDocumentUrl: 'v1/openapi.yaml',
    swaggerOptions: { persistAuthorization: true },
    customSiteTitle: 'Receptionist API',
  });
}
