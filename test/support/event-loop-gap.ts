/**
 * The longest the event loop went without running a 1 ms timer while `work` ran: how long this
 * process could not have answered anything else.
 */
export async function worstEventLoopGap<T>(
  work: () => Promise<T>,
): Promise<{ value: T; worstGapMs: number }> {
  let worstGapMs = 0
  let last = performance.now()
  const ticker = setInterval(() => {
    const now = performance.now()
    worstGapMs = Math.max(worstGapMs, now - last)
    last = now
  }, 1)
  try {
    const value = await work()
    worstGapMs = Math.max(worstGapMs, performance.now() - last)
    return { value, worstGapMs }
  } finally {
    clearInterval(ticker)
  }
}
