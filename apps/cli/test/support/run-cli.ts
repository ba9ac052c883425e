import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const cli = fileURLToPath(new URL('../../bin/domain-index.js', import.meta.url));

/** The outcome of one `domain-index` run. */
export interface CliRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the real CLI as a child process with only the given environment (plus PATH), in `cwd` if given. */
export function runCli(args: string[], env: Record<string, string>, stdin?: string, cwd?: string): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, ...(cwd !== undefined && { cwd }) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (status) => {
      resolve({ status, stdout, stderr });
    });
    child.stdin.end(stdin ?? '');
  });
}
