import { describe, expect, test } from "bun:test"
import { mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { EditBuffer } from "../../src/cli/editor/buffer.ts"
import { HISTORY_MAX_ENTRIES, History, historyPath, looksSecret } from "../../src/cli/editor/history.ts"
import { type Key, KeyDecoder } from "../../src/cli/editor/keys.ts"
import { Renderer } from "../../src/cli/editor/render.ts"

describe("KeyDecoder", () => {
  test("an escape sequence and a paste split across reads decode whole", () => {
    const d = new KeyDecoder()
    const keys: Key[] = []
    for (const chunk of ["ab\x1b", "[D", "\x1b[1;5", "C\x1b[20", "0~one\r\ntw", "o\x1b[20", "1~\r"]) {
      keys.push(...d.push(chunk))
    }
    expect(keys).toEqual([
      { kind: "text", text: "ab" },
      { kind: "key", name: "left" },
      { kind: "key", name: "right", ctrl: true },
      { kind: "paste", text: "one\ntwo" },
      { kind: "key", name: "enter" },
    ])
  })

  test("Alt keys, control letters, a lone Escape after the wait, and C1 bytes dropped", () => {
    const d = new KeyDecoder()
    expect(d.push("\x1bb\x1b\r\x1b\x7f\x12\x17\u009bx")).toEqual([
      { kind: "meta", letter: "b" },
      { kind: "key", name: "enter", meta: true },
      { kind: "key", name: "backspace", meta: true },
      { kind: "ctrl", letter: "r" },
      { kind: "ctrl", letter: "w" },
      { kind: "text", text: "x" },
    ])
    expect(d.push("\x1b")).toEqual([])
    expect(d.pending).toBe(true)
    expect(d.flush()).toEqual([{ kind: "key", name: "escape" }])
  })
})

describe("EditBuffer", () => {
  test("word moves and kills, kill and yank, line-wise Home/End in a multi-line text", () => {
    const b = new EditBuffer()
    b.insert("kubectl get pods/api-1 now")
    b.killBigWordLeft()
    expect(b.text).toBe("kubectl get pods/api-1 ")
    b.killBigWordLeft()
    expect(b.text).toBe("kubectl get ")
    b.yank()
    expect(b.text).toBe("kubectl get pods/api-1 ")
    b.wordLeft()
    expect(b.text.slice(b.cursor)).toBe("1 ")
    b.wordLeft()
    b.wordLeft()
    expect(b.text.slice(b.cursor)).toBe("pods/api-1 ")
    b.killWordRight()
    expect(b.text).toBe("kubectl get /api-1 ")

    b.set("first line\nsecond")
    b.lineStart()
    expect(b.cursor).toBe("first line\n".length)
    b.moveLine(-1)
    expect(b.cursor).toBe(0)
    b.lineEnd()
    expect(b.cursor).toBe("first line".length)
    b.killToEnd()
    expect(b.text).toBe("first linesecond")
  })

  test("the cursor never splits a surrogate pair", () => {
    const b = new EditBuffer()
    b.insert("a😀b")
    b.left()
    b.left()
    expect(b.cursor).toBe(1)
    b.deleteForward()
    expect(b.text).toBe("ab")
  })
})

describe("History", () => {
  test("the XDG path, the cap, multi-line entries, and secret-looking lines never written", () => {
    expect(historyPath({ XDG_STATE_HOME: "/s", HOME: "/h" })).toBe("/s/dupin/history")
    expect(historyPath({ XDG_STATE_HOME: "", HOME: "/h" })).toBe("/h/.local/state/dupin/history")
    const path = join(mkdtempSync(join(tmpdir(), "dupin-hist-")), "dupin", "history")
    const h = new History(path)
    for (let i = 0; i < HISTORY_MAX_ENTRIES + 5; i++) h.add(`question ${i}`)
    expect(h.add("line one\nline \\n two")).toBe(true)
    expect(h.add("export OPENAI_API_KEY=sk-abc123def456ghi789jkl012mno345")).toBe(false)
    expect(h.add("why is AKIAIOSFODNN7EXAMPLE denied?")).toBe(false)
    const again = new History(path)
    expect(again.entries).toHaveLength(HISTORY_MAX_ENTRIES)
    expect(again.entries[0]).toBe("question 6")
    expect(again.entries.at(-1)).toBe("line one\nline \\n two")
    expect(readFileSync(path, "utf8")).not.toMatch(/sk-abc|AKIA/)
    expect(again.search("question 10", again.entries.length)?.entry).toBe("question 1004")
    expect(looksSecret("why is the checkout pod restarting?")).toBe(false)
  })
})

test("two sessions open at once both keep their questions", () => {
  const path = join(mkdtempSync(join(tmpdir(), "dupin-hist-")), "history")
  const one = new History(path)
  const two = new History(path)
  one.add("from the first terminal")
  two.add("from the second terminal")
  expect(new History(path).entries).toEqual(["from the first terminal", "from the second terminal"])
})

describe("Renderer", () => {
  test("a redraw goes back to the first row of a wrapped line and the cursor lands on the edit point", () => {
    let out = ""
    const r = new Renderer(
      (t) => {
        out += t
      },
      () => 10,
    )
    // "> " + 12 characters: two rows; the cursor after 3 characters is on row 0, column 5.
    r.draw({ prompt: "> ", text: "abcdefghijkl", cursor: 3 })
    expect(out).toBe("\r\x1b[J> abcdefghijkl\r\x1b[1A\x1b[5C")
    out = ""
    r.draw({ prompt: "> ", text: "abcdefgh", cursor: 8 })
    // Exactly 10 columns: a newline keeps the row count true, and the cursor sits on the new row.
    expect(out).toBe("\r\x1b[J> abcdefgh\r\n\r")
    out = ""
    r.draw({ prompt: "> ", text: "x", cursor: 1 })
    expect(out.startsWith("\r\x1b[1A\x1b[J")).toBe(true)
  })
})
