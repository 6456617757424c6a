/** The names of the awk subset: what a program may call or read, and what it may not name. */

/** Builtins that only compute. split's array and sub/gsub's target are checked as names. */
export const BUILTINS: Record<string, [min: number, max: number]> = {
  length: [0, 1],
  substr: [2, 3],
  index: [2, 2],
  split: [2, 3],
  sub: [2, 3],
  gsub: [2, 3],
  match: [2, 2],
  sprintf: [1, 64],
  tolower: [1, 1],
  toupper: [1, 1],
  int: [1, 1],
  sqrt: [1, 1],
  exp: [1, 1],
  log: [1, 1],
  sin: [1, 1],
  cos: [1, 1],
  atan2: [2, 2],
  rand: [0, 0],
  srand: [0, 1],
}

/** The special variables a program may use; any other all-capitals name may be one (SYMTAB, PROCINFO, ARGV). */
export const SPECIALS = new Set(
  "NR NF FNR FS OFS ORS RS FILENAME SUBSEP RSTART RLENGTH CONVFMT OFMT".split(" "),
)

export const KEYWORDS = new Set(
  "BEGIN END if else while for in next exit break continue delete print printf".split(" "),
)

/** Names awk reads as something other than a variable: keywords and builtins outside the subset. */
export const RESERVED = new Set(
  (
    "function func getline return nextfile do switch case default system close fflush gensub " +
    "strftime systime mktime asort asorti patsplit strtonum and or xor compl lshift rshift isarray " +
    "typeof mkbool bindtextdomain dcgettext dcngettext BEGINFILE ENDFILE"
  ).split(" "),
)
