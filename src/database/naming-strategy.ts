import { DefaultNamingStrategy } from 'typeorm';

/**
 * A property's column name: `fromE164` is `from_e164`, `durationS` `duration_s`, `secretLast4` `secret_last4` (the
 * rule of `typeorm-naming-strategies`, whose releases declare TypeORM 0.2 and 0.3 only).
 */
export function snakeCase(property: string): string {
  return property
    .replace(/([A-Z])([A-Z])([a-z])/g, '$1_$2$3')
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase();
}

/**
 * Every column is its property in snake_case, unless its decorator names it (`@Column({ name })`): the property is
 * the one name. Tables, keys, indexes and constraints are named on each entity as the migrations name them, so
 * nothing else of TypeORM's default naming is used.
 */
export class SnakeNamingStrategy extends DefaultNamingStrategy {
  override columnName(propertyName: string, customName: string | undefined, embeddedPrefixes: string[]): string {
    return customName || snakeCase([...embeddedPrefixes, propertyName].join('_'));
  }
}

/** The one instance every DataSource (app, CLI, migrations, tests) and every select list uses. */
export const NAMING_STRATEGY = new SnakeNamingStrategy();
