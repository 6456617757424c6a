import { describe, expect, test } from "bun:test"
import { awkProgramVerdict } from "../../../src/toolset/bash/rules/awk-program.ts"

const AWK_IDIOMS = [
  "{print $1}",
  "$3>1000 {print $1, $3}",
  "{s+=$5} END {print s}",
  "{c[$1]++} END {for (k in c) print k, c[k]}",
  "NR>1 && $4 ~ /Error/ {print}",
  "$3 > 5",
  "NR>1 {print ($2 > 3)}",
  "/a|b/ {n++} END {print n}",
  "{ a = $1 / 2; print a }",
  "{ if ($1 >= 2 || $2 ~ /x|y/) print }",
  "!/^#/",
  "{print $NF}",
  "{print $(NF-1)}",
  'BEGIN{FS=":"} {print $1}',
  '{ n = split($0, parts, ","); print parts[1] }',
  '{printf "%s %d\\n", $1, $2}',
  "{ if (x) print 1; else print 2 }",
  '{ gsub(/a/, "b"); print }',
  "{print length($0)}",
  "length > 10",
  "{ print substr($1, 1, 3) }",
  "{for (i = 1; i <= NF; i++) s += $i} END {print s}",
  "/[0-9]+/ {print}",
  '{ printf("%s\\n", $1) }',
  '{print $1 " " $2}',
  '$1 == "x", $1 == "y"',
  "NR==1\n{print}",
  "END { print NR }",
  '{ x = $2 > 3 ? "big" : "small"; print x }',
  "{ print toupper($1), int($2 / 3) }",
]

describe("awk programs inside the grammar run without approval", () => {
  for (const program of AWK_IDIOMS) {
    test(JSON.stringify(program), () => expect(awkProgramVerdict(program).decision).toBe("allow"))
  }
})

describe("awk programs outside the grammar need approval", () => {
  for (const program of [
    // The red team's bracket-regex trick, and `/` after `)` (gawk reads a regex there, mawk not).
    'BEGIN{x=("a"~/[/]"/); print "id" | "sh"}',
    'BEGIN{x=("a"~/[]/]"/); print "id" | "sh"}',
    'BEGIN{x=("a"~/[[:alpha:]/]"/); print "id" | "sh"}',
    'BEGIN{x=("a"~/[\\/]"/); print "id" | "sh"}',
    'BEGIN { if (1) /[/]"/; print "id" | "sh" }',
    'BEGIN{x = (1) /[/]"/; print "id" | "sh"}',
    "BEGIN { a = 1 / 2 / 3 }",
    '{ x++ / 1; print 1 | "sh"; y = 1 / 2 }',
    "{ x = $1 /=2/ }",
    // Commands, files and the environment.
    'BEGIN{system("id")}',
    'BEGIN{"id" | getline x}',
    'BEGIN{getline < "/etc/passwd"; print}',
    'BEGIN{getline x < "/etc/passwd"}',
    "{getline}",
    '{print > "/tmp/x"}',
    '{print $1 >> "/tmp/x"}',
    '{print x = 1 > "/tmp/x"}',
    '{printf("x") > "/tmp/x"}',
    '{print (1)(2) > "/tmp/x"}',
    '{print $1,\n$2 > "/tmp/x"}',
    "{print > $1}",
    '{print | "sh"}',
    '{print |& "sh"}',
    'BEGIN{close("x")}',
    "BEGIN{fflush()}",
    'BEGIN{ARGV[1]="/etc/shadow"}',
    'BEGIN{print PROCINFO["pid"]}',
    'BEGIN{print SYMTAB["x"]}',
    'BEGIN{f="system"; @f("id")}',
    '@load "filefuncs"',
    '@include "x"',
    'BEGIN{awk::system("id")}',
    "function f(){}",
    'BEGIN { print 1 \\\n> "/tmp/x" }',
    "BEGIN{x = 0x1}",
    "BEGIN { print strftime() }",
  ]) {
    test(JSON.stringify(program), () => expect(awkProgramVerdict(program).decision).toBe("approve"))
  }
  for (const program of ['BEGIN{print ENVIRON["HOME"]}', "{ for (k in ENVIRON) print k }"]) {
    test(`${JSON.stringify(program)} is refused even approved`, () =>
      expect(awkProgramVerdict(program).decision).toBe("deny"))
  }
})
