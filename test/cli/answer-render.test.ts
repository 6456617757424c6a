// Issue 21 item 7: an answer taller than the screen appeared twice in the scrollback (raw, then
// rendered), and wide markdown tables wrapped mid-cell at 120 columns.
import { describe, expect, test } from "bun:test"
import { AnswerView } from "../../src/cli/ask/answer-view.ts"
import { renderMarkdown } from "../../src/cli/render/markdown.ts"
import { style, visible } from "../../src/cli/render/style.ts"

const WIDE = `| Pod | Status | Reason | Message |
|---|---|---|---|
${[1, 2, 3]
  .map(
    (i) =>
      `| checkout-api-${i} | CrashLoopBackOff | OOMKilled | Container exceeded its memory limit of 512Mi after ${i} restarts; the JVM heap is set to 480Mi |`,
  )
  .join("\n")}
`

describe("the rendered answer", () => {
  test("a table wider than the terminal is folded into a list; one that fits stays a table", () => {
    const wide = visible(renderMarkdown(WIDE, 120))
    for (const line of wide.split("\n")) expect(line.length).toBeLessThanOrEqual(120)
    expect(wide).not.toContain("│")
    expect(wide).toContain("Message: Container exceeded its memory limit of 512Mi after 2 restarts")
    expect(visible(renderMarkdown("| a | b |\n|---|---|\n| 1 | 2 |\n", 120))).toContain("│ 1 │ 2 │")
  })

  test("an answer taller than the screen is shown once, rendered", async () => {
    let out = ""
    const view = new AnswerView({
      facts: {
        live: true,
        color: false,
        render: true,
        streamAnswer: true,
        columns: () => 80,
        rows: () => 10,
      },
      style: style(false),
      write: (text) => {
        out += text
      },
    })
    const answer = Array.from({ length: 30 }, (_, i) => `Finding number ${i + 1}.\n`).join("\n")
    for (const piece of answer.match(/[\s\S]{1,20}/g) ?? []) view.push(piece)
    await view.finish(answer)
    // The early part streamed while it fit on the screen, and was erased (cursor up, erase down).
    expect(out).toContain("\x1b[J")
    // Past the screen's height nothing raw is written: the rest appears once, rendered.
    expect(out.split("Finding number 25.").length - 1).toBe(1)
  })
})
