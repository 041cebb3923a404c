/**
 * A dashboard action's input is wrong (the CLI is the dashboard's stand-in).
 * Services name the domain field (`url`, `expiresAt`); only the CLI knows
 * which flag set it, and words the message with that flag.
 */
export class InvalidInputError extends Error {
  constructor(
    /** The domain field at fault, e.g. `url`, `expiresAt`, `permissionSet`. */
    readonly field: string,
    /** What is wrong, worded to follow the field's name: "must be an https URL". */
    readonly reason: string,
  ) {
    super(`${field} ${reason}`);
    this.name = 'InvalidInputError';
  }
}
