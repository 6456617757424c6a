/**
 * A markdown table wider than the terminal, drawn as a table, wraps mid-cell and reads as noise
 * (a pod list with reasons and messages at 120 columns). Such a table is folded into a list
 * instead: one item per row, `**header**: value` per cell. A table that fits stays a table.
 */
import { Lexer, type Tokens } from "marked"

/** Borders and padding cli-table3 adds: `│ ` before each cell, ` ` after, and a closing `│`. */
const CELL_OVERHEAD = 3

export function foldWideTables(markdown: string, width: number): string {
  let out = markdown
  for (const token of new Lexer().lex(markdown)) {
    if (token.type !== "table") continue
    const table = token as Tokens.Table
    if (tableWidth(table) <= width) continue
    out = out.replace(table.raw, `${folded(table)}\n\n`)
  }
  return out
}

function tableWidth(table: Tokens.Table): number {
  const widths = table.header.map((cell, i) =>
    Math.max(cell.text.length, ...table.rows.map((row) => row[i]?.text.length ?? 0)),
  )
  return widths.reduce((sum, w) => sum + w + CELL_OVERHEAD, 1)
}

function folded(table: Tokens.Table): string {
  return table.rows
    .map((row) => {
      const cells = row.map((cell, i) => `**${table.header[i]?.text ?? ""}**: ${cell.text}`)
      const [first, ...rest] = cells
      return [`- ${first ?? ""}`, ...rest.map((c) => `    - ${c}`)].join("\n")
    })
    .join("\n")
}
