/**
 * The control socket's protocol, both ends. The caller sends one JSON line, {@link ControlRequest},
 * then, when the command reads stdin, stdin's bytes, and ends its side. The server answers with
 * JSON lines, {@link ControlFrame}: the command's output as it comes, then its exit code.
 */
export interface ControlRequest {
  /** The words after `domain-index`, as typed. */
  args: string[];
  /** Where they were typed: relative paths are read from there. */
  cwd: string;
  /** Whether stdin's bytes follow the request line. */
  stdin: boolean;
}

export type ControlFrame = { stdout: string } | { stderr: string } | { exit: number };

/** The socket, in a directory of DATA_DIR that only its owner may enter. */
export const CONTROL_DIR = 'control';
export const CONTROL_SOCKET = 'domain-index.sock';
/** A request line longer than this is not a command line. */
export const MAX_REQUEST_BYTES = 64 * 1024;
