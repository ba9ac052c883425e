/**
 * Whether a check answers true within `ms`: false when it answers false, fails, or is still
 * waiting (a probe must answer promptly even when what it checks hangs). The timer is cleared
 * either way, so a fast answer leaves nothing behind.
 */
export async function answersWithin(check: Promise<boolean>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([check.catch(() => false), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
