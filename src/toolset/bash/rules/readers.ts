import { allow, approve, deny, type Verdict } from "../verdict.ts"
import { getopt, operandsLike, type ProgramRule, withTraits } from "./program.ts"

/**
 * Programs that read or list the files they are given. Reading an ordinary file is a read: the
 * policy has already refused every argument that names a credential (resolved as the kernel
 * resolves it), so what is left here is the grammar. Options that take their input from a list
 * in a file (and echo it) or write ask.
 */
const FROM_FILE = "takes file names from a file"

const checksum: Omit<ProgramRule, "examples"> = {
  options: getopt("bctwz", [
    "binary",
    "check",
    "tag",
    "text",
    "zero",
    "ignore-missing",
    "quiet",
    "status",
    "strict",
    "warn",
    "help",
    "version",
  ]),
  ask: { "-c": "echoes the lines of a checksum file", "--check": "echoes the lines of a checksum file" },
}

const READ_FILES: Record<string, ProgramRule> = {
  cat: {
    examples: {
      allow: ["cat /etc/os-release", "cat /proc/pressure/memory"],
      deny: ["cat /proc/self/environ"],
    },
    options: getopt("AbeEnstTuv", [
      "show-all",
      "number-nonblank",
      "show-ends",
      "number",
      "squeeze-blank",
      "show-tabs",
      "show-nonprinting",
      "help",
      "version",
    ]),
  },
  ls: {
    deviceMetadata: true,
    examples: { allow: ["ls -la /var/log"], ask: ["ls --bogus"], deny: ["ls /etc/dupin/"] },
    options: getopt("aAbBcCdDfFgGhHiI:klLmnNopqQrRsStT:uUvw:xXZ1", [
      "all",
      "almost-all",
      "author",
      "escape",
      "block-size=",
      "ignore-backups",
      "color?",
      "colour?",
      "directory",
      "dired",
      "classify?",
      "file-type",
      "format=",
      "full-time",
      "group-directories-first",
      "no-group",
      "human-readable",
      "si",
      "dereference-command-line",
      "dereference-command-line-symlink-to-dir",
      "hide=",
      "hyperlink?",
      "indicator-style=",
      "inode",
      "ignore=",
      "kibibytes",
      "dereference",
      "numeric-uid-gid",
      "literal",
      "hide-control-chars",
      "show-control-chars",
      "quote-name",
      "quoting-style=",
      "reverse",
      "recursive",
      "size",
      "sort=",
      "time=",
      "time-style=",
      "tabsize=",
      "width=",
      "context",
      "zero",
      "help",
      "version",
    ]),
  },
  stat: {
    deviceMetadata: true,
    examples: { allow: ["stat -c %s /tmp/x"], ask: ["stat --bogus /tmp/x"] },
    options: getopt("Lfc:t", [
      "dereference",
      "file-system",
      "cached=",
      "format=",
      "printf=",
      "terse",
      "help",
      "version",
    ]),
  },
  du: {
    deviceMetadata: true,
    examples: {
      allow: ["du -sh /var/log"],
      ask: ["du -X /tmp/p /var"],
      deny: ["du --files0-from=/proc/self/environ"],
    },
    options: getopt("0abB:cDd:HhkLlmPSst:xX:", [
      "null",
      "all",
      "apparent-size",
      "block-size=",
      "bytes",
      "total",
      "dereference-args",
      "max-depth=",
      "files0-from=",
      "human-readable",
      "inodes",
      "dereference",
      "count-links",
      "no-dereference",
      "separate-dirs",
      "si",
      "summarize",
      "threshold=",
      "time?",
      "time-style=",
      "exclude-from=",
      "exclude=",
      "one-file-system",
      "help",
      "version",
    ]),
    ask: {
      "--files0-from": FROM_FILE,
      "-X": "reads patterns from a file",
      "--exclude-from": "reads patterns from a file",
    },
  },
  df: {
    deviceMetadata: true,
    examples: { allow: ["df -h"], ask: ["df --bogus"] },
    options: getopt("aB:hHiklPt:Tx:v", [
      "all",
      "block-size=",
      "human-readable",
      "si",
      "inodes",
      "local",
      "no-sync",
      "output?",
      "portability",
      "sync",
      "total",
      "type=",
      "print-type",
      "exclude-type=",
      "help",
      "version",
    ]),
  },
  file: {
    examples: { allow: ["file /bin/ls"], ask: ["file -z /tmp/x"] },
    options: getopt("bcCdEe:F:f:hiklLm:nNp0P:rsSvzZ", [
      "help",
      "version",
      "magic-file=",
      "uncompress",
      "uncompress-noreport",
      "brief",
      "checking-printout",
      "exclude=",
      "exclude-quiet=",
      "files-from=",
      "separator=",
      "mime",
      "mime-type",
      "mime-encoding",
      "apple",
      "extension",
      "keep-going",
      "list",
      "dereference",
      "no-dereference",
      "no-buffer",
      "no-pad",
      "print0",
      "preserve-date",
      "parameter=",
      "raw",
      "special-files",
      "no-sandbox",
      "compile",
      "debug",
    ]),
    ask: Object.fromEntries([
      ["-m", "loads other magic files"],
      ["--magic-file", "loads other magic files"],
      ["-C", "writes a compiled magic file"],
      ["--compile", "writes a compiled magic file"],
      ["-f", FROM_FILE],
      ["--files-from", FROM_FILE],
      ["-p", "changes access times back"],
      ["--preserve-date", "changes access times back"],
      ["-z", "runs decompressors"],
      ["-Z", "runs decompressors"],
      ["--uncompress", "runs decompressors"],
      ["--uncompress-noreport", "runs decompressors"],
      ["-S", "turns its sandbox off"],
      ["--no-sandbox", "turns its sandbox off"],
    ]),
  },
  seq: {
    examples: { allow: ["seq 1 10"], ask: ["seq a"] },
    options: getopt("f:s:w", ["format=", "separator=", "equal-width", "help", "version"]),
    operands: operandsLike(/^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i, "seq takes numbers"),
  },
  nl: {
    examples: { allow: ["nl /tmp/x"], ask: ["nl --bogus /tmp/x"] },
    options: getopt("b:d:f:h:i:l:n:ps:v:w:", [
      "body-numbering=",
      "section-delimiter=",
      "footer-numbering=",
      "header-numbering=",
      "line-increment=",
      "join-blank-lines=",
      "number-format=",
      "no-renumber",
      "number-separator=",
      "starting-line-number=",
      "number-width=",
      "help",
      "version",
    ]),
  },
  od: {
    examples: { allow: ["od -An -c /etc/hostname"], ask: ["od --bogus"] },
    options: getopt("A:abcdfhij:lN:ost:vw::xB", [
      "traditional",
      "address-radix=",
      "endian=",
      "skip-bytes=",
      "read-bytes=",
      "strings?",
      "format=",
      "output-duplicates",
      "width?",
      "help",
      "version",
    ]),
  },
  hexdump: {
    examples: { allow: ["hexdump -C /tmp/x"], ask: ["hexdump -f /tmp/fmt /tmp/x"] },
    options: getopt("bcCdoxL::e:f:n:s:vhV", [
      "one-byte-octal",
      "one-byte-char",
      "canonical",
      "two-bytes-decimal",
      "two-bytes-octal",
      "two-bytes-hex",
      "color?",
      "format=",
      "format-file=",
      "length=",
      "skip=",
      "no-squeezing",
      "help",
      "version",
    ]),
    ask: { "-f": "reads its format from a file", "--format-file": "reads its format from a file" },
  },
  paste: {
    options: getopt("d:sz", ["delimiters=", "serial", "zero-terminated", "help", "version"]),
    examples: { allow: ["paste -d, /tmp/a /tmp/b"], ask: ["paste --bogus"] },
  },
  comm: {
    examples: { allow: ["comm -12 /tmp/a /tmp/b"], ask: ["comm --bogus"] },
    options: getopt("123z", [
      "check-order",
      "nocheck-order",
      "output-delimiter=",
      "total",
      "zero-terminated",
    ]),
  },
  join: {
    examples: { allow: ["join -t, /tmp/a /tmp/b"], ask: ["join --bogus"] },
    options: getopt("a:e:io:t:v:1:2:j:z", [
      "ignore-case",
      "check-order",
      "nocheck-order",
      "header",
      "zero-terminated",
    ]),
  },
  readlink: {
    deviceMetadata: true,
    examples: { allow: ["readlink -f /etc/localtime"], ask: ["readlink --bogus"] },
    options: getopt("femnqsvz", [
      "canonicalize",
      "canonicalize-existing",
      "canonicalize-missing",
      "no-newline",
      "quiet",
      "silent",
      "verbose",
      "zero",
      "help",
      "version",
    ]),
  },
  realpath: {
    deviceMetadata: true,
    examples: { allow: ["realpath /tmp"], ask: ["realpath --bogus"] },
    options: getopt("emLPqsz", [
      "canonicalize-existing",
      "canonicalize-missing",
      "logical",
      "physical",
      "quiet",
      "relative-to=",
      "relative-base=",
      "strip",
      "no-symlinks",
      "zero",
      "help",
      "version",
    ]),
  },
  basename: {
    options: getopt("as:z", ["multiple", "suffix=", "zero", "help", "version"]),
    examples: { allow: ["basename /a/b.txt .txt"], ask: ["basename --bogus"] },
  },
  dirname: {
    options: getopt("z", ["zero", "help", "version"]),
    examples: { allow: ["dirname /a/b"], ask: ["dirname --bogus"] },
  },
  pwd: {
    examples: { allow: ["pwd"], ask: ["pwd x"] },
    options: getopt("LP", [], { abbreviations: false }),
    operands: operandsLike(/^$/, "pwd takes no operands"),
  },
  md5sum: { ...checksum, examples: { allow: ["md5sum /tmp/x"], ask: ["md5sum -c /tmp/sums"] } },
  sha1sum: { ...checksum, examples: { allow: ["sha1sum /tmp/x"], ask: ["sha1sum --check /tmp/sums"] } },
  sha256sum: { ...checksum, examples: { allow: ["sha256sum /tmp/x"], ask: ["sha256sum -c /tmp/sums"] } },
  sha512sum: { ...checksum, examples: { allow: ["sha512sum /tmp/x"], ask: ["sha512sum -c /tmp/sums"] } },
}

/** find primaries that only test or print; -exec and friends run commands, -fprint* and -delete write. */
const FIND_TESTS = new Set(
  (
    "-name -iname -path -ipath -wholename -iwholename -regex -iregex -lname -ilname -type -xtype -size " +
    "-mtime -mmin -atime -amin -ctime -cmin -newer -anewer -cnewer -used -user -group -uid -gid -nouser " +
    "-nogroup -perm -links -inum -samefile -empty -readable -writable -executable -fstype -context " +
    "-maxdepth -mindepth -xdev -mount -depth -follow -prune -print -print0 -printf -ls -true -false -not " +
    "-a -and -o -or -quit -daystart -noleaf -regextype -ignore_readdir_race -noignore_readdir_race " +
    "-warn -nowarn ! ( ) ,"
  ).split(" "),
)
/** Primaries followed by one value word. */
const FIND_VALUE = new Set(
  (
    "-name -iname -path -ipath -wholename -iwholename -regex -iregex -lname -ilname -type -xtype -size " +
    "-mtime -mmin -atime -amin -ctime -cmin -newer -anewer -cnewer -used -user -group -uid -gid -perm " +
    "-links -inum -samefile -fstype -context -maxdepth -mindepth -printf -regextype"
  ).split(" "),
)
const FIND_DENY = /^-(exec|execdir|ok|okdir|delete|fprint|fprint0|fprintf|fls)$/

function classifyFind(args: readonly string[]): Verdict {
  const bad = args.find((a) => FIND_DENY.test(a))
  if (bad) return deny(`find ${bad} runs commands or changes files`)
  let i = 0
  // Leading options: -H -L -P, -D debugopts, -Olevel.
  for (; i < args.length && /^-[HLP]$|^-O\d$|^-D$/.test(args[i]!); i++) if (args[i] === "-D") i++
  // Start points: everything up to the first word that starts an expression.
  while (i < args.length && !/^[-!(),]/.test(args[i]!)) i++
  for (; i < args.length; i++) {
    const word = args[i]!
    if (/^-newer[aBcmt][aBcmt]$/.test(word)) {
      i++
      continue
    }
    if (!FIND_TESTS.has(word)) return approve(`find ${word} is not known to be read-only`)
    if (FIND_VALUE.has(word)) i++
  }
  return allow("find lists names")
}

export const READERS: Record<string, ProgramRule> = {
  ...withTraits(READ_FILES, { reads: "files" }),
  find: {
    classify: classifyFind,
    examples: {
      allow: ["find /var/log -name '*.log' -mtime -1", "find / -xdev -newermt 2020-01-01 -name x"],
      ask: ["find . -files0-from /tmp/x"],
      deny: ["find / -delete", "find . -exec rm {} +"],
    },
  },
}
