/** An answer other than 2xx: the problem+json body, with its stable `code`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly problem: unknown,
  ) {
    super(`HTTP ${status}: ${JSON.stringify(problem)}`);
  }
}
