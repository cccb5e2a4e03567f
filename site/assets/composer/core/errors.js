/* The one expected error type of the composer's engine, as prereq.core.errors.PrereqError:
 * a problem the user can fix, with a hint and the CLI's exit code (1: bad input, 2: usage).
 *
 * Folder core/: what every part of the engine shares, as prereq.core does: the one error type,
 * versions and ranges, the dependency walk, `<% %>` placeholders, Python's order of strings.
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
