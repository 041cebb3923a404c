/**
 * For endpoints that take no query parameters: bound with `@Query()`, the
 * validation pipe refuses any parameter sent, naming it (a typo never passes silently).
 */
export class NoQueryDto {}
