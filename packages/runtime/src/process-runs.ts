/** Whether a process with this pid runs on this machine (signal 0 asks without signalling it). */
export function processRuns(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user
    return (error as { code?: unknown }).code === 'EPERM';
  }
}
