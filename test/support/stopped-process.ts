/** Runs `during` with the process stopped (SIGSTOP: its connections stay open, nothing answers), and resumes it whatever happens. */
export async function whileStopped<T>(pid: number, during: () => Promise<T>): Promise<T> {
  process.kill(pid, 'SIGSTOP');
  try {
    return await during();
  } finally {
    process.kill(pid, 'SIGCONT');
  }
}
