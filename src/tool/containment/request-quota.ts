/**
 * One request's share of the tool-process pool (issue 18 class 6). Without it one request held all
 * 32 slots with `tail -f` pipelines and another user's `uptime` waited 18 s (R13), and four
 * `cat /dev/zero | tail -c 1G` calls held 3.7 GB (R6). Each request gets at most a quarter of the
 * slots and a quarter of the tool memory; the sandbox helper counts resident memory per request.
 */
export class RequestQuota {
  /** Slots this request holds now. */
  inUse = 0
  /** Names the request to the sandbox helper, which sums its processes' memory. */
  readonly key = crypto.randomUUID()

  constructor(
    readonly slots: number,
    readonly memoryBytes: number,
  ) {}
}

/** A quarter of the whole, at least one slot. */
export function requestSlots(total: number): number {
  return Math.max(1, Math.floor(total / 4))
}
