/** SGR colours for progress lines; all identity functions when colour is off (NO_COLOR). */
export type Style = {
  green: (text: string) => string
  red: (text: string) => string
  yellow: (text: string) => string
  cyan: (text: string) => string
  dim: (text: string) => string
  bold: (text: string) => string
}

const sgr = (open: number, close: number) => (text: string) => `\x1b[${open}m${text}\x1b[${close}m`
const same = (text: string) => text

export function style(color: boolean): Style {
  if (!color) return { green: same, red: same, yellow: same, cyan: same, dim: same, bold: same }
  return {
    green: sgr(32, 39),
    red: sgr(31, 39),
    yellow: sgr(33, 39),
    cyan: sgr(36, 39),
    dim: sgr(2, 22),
    bold: sgr(1, 22),
  }
}

/** Text without its SGR sequences: what takes room on the screen. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching escape sequences is the point
const SGR = /\x1b\[[0-9;]*m/g
export const visible = (text: string): string => text.replace(SGR, "")
