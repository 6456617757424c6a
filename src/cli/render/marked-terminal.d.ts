/** marked-terminal ships no types; this is the part dupin uses. */
declare module "marked-terminal" {
  import type { MarkedExtension } from "marked"

  export type TerminalRendererOptions = {
    width?: number
    reflowText?: boolean
    showSectionPrefix?: boolean
    tab?: number
  }

  export function markedTerminal(options?: TerminalRendererOptions): MarkedExtension
}
