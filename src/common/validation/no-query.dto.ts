/**
 * For endpoints that take no query parameters (a route declaration without a query DTO, route-input.ts): the
 * validation pipe refuses any parameter sent, naming it (a typo never passes silently).
 */
export class NoQueryDto {}
