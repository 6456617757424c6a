/**
 * The jq builtins a filter may call without approval, as `name/arity`: each only computes over
 * its input. Not here, so they need a human: input/inputs, input_filename, input_line_number,
 * $__loc__, debug, stderr, halt, halt_error, modulemeta, get_search_list, builtins, import,
 * include, def, label and everything dupin does not know.
 */
export const JQ_BUILTINS = new Set(
  [
    "select/1 map/1 map_values/1 length/0 utf8bytelength/0 keys/0 keys_unsorted/0 values/0 has/1 in/1",
    "contains/1 inside/1 startswith/1 endswith/1 test/1 test/2 match/1 match/2 capture/1 capture/2",
    "scan/1 scan/2 splits/1 splits/2 sub/2 sub/3 gsub/2 gsub/3 split/1 split/2 join/1",
    "ascii_downcase/0 ascii_upcase/0 ltrimstr/1 rtrimstr/1 trim/0 ltrim/0 rtrim/0 explode/0 implode/0",
    "tostring/0 tonumber/0 type/0 sort/0 sort_by/1 group_by/1 unique/0 unique_by/1 min/0 max/0",
    "min_by/1 max_by/1 add/0 any/0 any/1 any/2 all/0 all/1 all/2 first/0 first/1 last/0 last/1",
    "nth/1 nth/2 limit/2 until/2 while/2 repeat/1 range/1 range/2 range/3 recurse/0 recurse/1",
    "to_entries/0 from_entries/0 with_entries/1 del/1 delpaths/1 getpath/1 setpath/2 paths/0 paths/1",
    "leaf_paths/0 path/1 pick/1 empty/0 error/0 error/1 not/0 floor/0 ceil/0 round/0 sqrt/0 fabs/0",
    "abs/0 pow/2 log/0 exp/0 tojson/0 fromjson/0 reverse/0 flatten/0 flatten/1 indices/1 index/1",
    "rindex/1 transpose/0 combinations/0 combinations/1 walk/1 isempty/1 tostream/0 objects/0",
    "arrays/0 strings/0 numbers/0 booleans/0 nulls/0 iterables/0 scalars/0 infinite/0",
    "nan/0 isinfinite/0 isnan/0 isnormal/0 isvalid/1 now/0 todate/0 fromdate/0 todateiso8601/0",
    "fromdateiso8601/0 dateadd/2 datesub/2 date/0 strftime/1 strflocaltime/1 strptime/1 mktime/0",
    "gmtime/0 localtime/0 ascii/0 toarray/0 significand/0 logb/0 gamma/0 trunc/0",
  ]
    .join(" ")
    .split(" "),
)

/** `@name` string formats; all only encode text. */
export const JQ_FORMATS = new Set([
  "text",
  "json",
  "csv",
  "tsv",
  "html",
  "uri",
  "sh",
  "base64",
  "base64d",
  "base32",
  "base32d",
])

/** Reserved words; `and`, `or` and the literals are read by the parser itself. */
export const JQ_KEYWORDS = new Set(
  "def as if then elif else end reduce foreach try catch label import include and or __loc__".split(" "),
)
