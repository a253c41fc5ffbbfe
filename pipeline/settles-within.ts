/**
 * Whether a promise settles (resolves or rejects) within `ms`: for closing up, where a close
 * that hangs on a dead server must not hold the caller forever (workers.ts, ingest-run.ts).
 */
export async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const settled = promise.then(
    () => true,
    () => true,
  );
  const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  return Promise.race([settled, late]).finally(() => clearTimeout(timer));
}
