/**
 * Runs at most `max` tasks at once; the rest wait in arrival order. A step's tool calls go through
 * one limiter so eighty calls the model asks for at once are eight processes at a time, not eighty.
 */
export function limiter(max: number): <T>(task: () => Promise<T>) => Promise<T> {
  let active = 0
  const waiting: Array<() => void> = []
  return async (task) => {
    if (active < max) active++
    else await new Promise<void>((resolve) => waiting.push(resolve))
    try {
      return await task()
    } finally {
      // Hand the slot straight to the next waiter, so `active` never dips and lets two in.
      const next = waiting.shift()
      if (next) next()
      else active--
    }
  }
}
