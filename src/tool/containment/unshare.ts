/**
 * util-linux `unshare`, the fallback when bubblewrap is missing: own user, pid, ipc and mount
 * namespaces and a fresh /proc, so dupin's /proc entries are out of reach. It cannot make the
 * root file system read-only or hide files without a helper script, so the file system stays
 * shared at this level. No uid is mapped: the tool holds no capabilities after exec.
 */
export function unshareArgs(unshare: string): string[] {
  return [unshare, "--user", "--pid", "--ipc", "--mount", "--fork", "--kill-child", "--mount-proc", "--"]
}

/**
 * The first process of a pid namespace ignores every signal it has no handler for, so a tool
 * running as pid 1 would shrug off SIGPIPE (`yes | head` would end in EPIPE errors) and SIGTERM.
 * A fixed shell stays pid 1 and runs the tool as its child; the tool's argv are positional
 * parameters, never part of the script. `; exit` keeps dash from exec'ing the command in place.
 */
export function reaperArgs(sh: string): string[] {
  return [sh, "-c", '"$@"; exit $?', "dupin-init"]
}
