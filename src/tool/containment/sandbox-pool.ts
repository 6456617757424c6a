/**
 * The long-lived sandboxes of this dupin process: one per view and per set of files bound back
 * into it (a different KUBECONFIG gets its own). Started on first use, killed with dupin.
 */
import { HelperSandbox } from "./helper-sandbox.ts"
import type { ContainmentState } from "./index.ts"
import { privateHomeOf, reexposed, type SandboxView } from "./views.ts"

export class SandboxPool {
  readonly #sandboxes = new Map<string, HelperSandbox>()
  #hooked = false

  constructor(readonly containment: ContainmentState) {}

  get(view: SandboxView, env: Record<string, string>): HelperSandbox {
    const home = view === "read-only" ? privateHomeOf(this.containment) : null
    const key = `${view}\u0000${reexposed(env, this.containment, home).join("\u0000")}`
    let sandbox = this.#sandboxes.get(key)
    if (!sandbox) {
      sandbox = new HelperSandbox(this.containment, view, env, this.containment.totalMemoryBytes)
      this.#sandboxes.set(key, sandbox)
      this.#hook()
    }
    return sandbox
  }

  /** The sandboxes started so far (tests, operators). */
  get sandboxes(): HelperSandbox[] {
    return [...this.#sandboxes.values()]
  }

  dispose(): void {
    for (const sandbox of this.#sandboxes.values()) sandbox.dispose()
    this.#sandboxes.clear()
  }

  /** bwrap's --die-with-parent covers a killed dupin; an orderly exit stops them at once. */
  #hook(): void {
    if (this.#hooked) return
    this.#hooked = true
    process.once("exit", () => {
      for (const sandbox of this.#sandboxes.values()) sandbox.stop()
    })
  }
}
