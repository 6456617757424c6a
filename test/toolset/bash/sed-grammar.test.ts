import { describe, expect, test } from "bun:test"
import { sedScriptProblem } from "../../../src/toolset/bash/rules/sed-script.ts"

describe("sed scripts inside the grammar run without approval", () => {
  for (const script of [
    "s/a/b/g",
    "s|a|b|2",
    "s/a/b/gI",
    "s/a\\/b/c/",
    "s/[0-9][0-9]*/N/g",
    "s/[^ ]*//",
    "/x/,/y/d",
    "0,/re/d",
    "1~2p",
    "$!N;P;D",
    "$d",
    "/^$/d",
    "y/abc/xyz/",
    "/re/I,+3{p;=}",
    "/error/!d",
    "10q",
    "q 3",
    "1d\n$d",
    "s/a/b/ ;p",
    "p # print twice",
  ]) {
    test(JSON.stringify(script), () => expect(sedScriptProblem(script)).toBeUndefined())
  }
})

describe("sed scripts outside the grammar need approval", () => {
  for (const script of [
    // The red team's forms: GNU ends a label at `;`, so the command after it runs.
    ":a;e id",
    ":a;w /tmp/x",
    ":a;r /etc/passwd",
    ": a b;e id",
    ":a\ne id",
    "ba;e id",
    "t;e id",
    // e, r, R, w, W, F anywhere they can start a command.
    "e id",
    "1e id",
    "$!e id",
    "/x/e id",
    "p;e id",
    "p\ne id",
    "{p};e id",
    "{p}\ne id",
    "$!{e id\n}",
    "W /tmp/x",
    "R /etc/passwd",
    "w /tmp/x",
    "r /etc/passwd",
    "F",
    "z",
    "v",
    "l",
    // Flags of s that run or write, and flags dupin does not take.
    "s/x/id/e",
    "s/x/y/w /tmp/x",
    "s/x/y/gw /tmp/x",
    "s/x/y/ge",
    "s/x/y/m",
    "s/x/y/ w /tmp/x",
    "s,a,b,;e",
    "y/a/b/;r x",
    // Text commands, custom-delimiter addresses, delimiters inside brackets.
    "a foo",
    "i\\\nfoo",
    "c foo",
    "\\,x,p",
    "s/[/]/x/",
    "s/a[/]e/x/",
    "s/a/[/",
    "s\\a\\b\\",
    // Unbalanced blocks and stray text.
    "{p",
    "}",
    "1,p",
    "p x",
    "k",
  ]) {
    test(JSON.stringify(script), () => expect(sedScriptProblem(script)).toBeDefined())
  }
})
