/**
 * A failure the CLI reports as one line and a non-zero exit, without a stack. In a file of its
 * own so that the CLI can recognise it without loading the database modules (cli.ts loads a
 * command's modules only when that command runs).
 */
export class CliError extends Error {
  override readonly name = 'CliError';
}
