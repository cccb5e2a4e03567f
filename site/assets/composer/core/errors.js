/* The engine's one expected error, as prereq.core.errors.PrereqError: a problem the user can fix,
 * with a hint and the CLI's exit code (1: bad input, 2: usage).
 * May import: vendor/.
 */

export class PrereqError extends Error {
  constructor(message, { hint = "", exitCode = 2 } = {}) {
    super(message);
    this.name = "PrereqError";
    this.message = message;
    this.hint = hint;
    this.exitCode = exitCode;
  }
}
