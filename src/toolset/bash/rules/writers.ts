/**
 * Programs that create, change or delete the files named in their arguments. Any of them touching
 * /etc is refused even with approval (see policy.ts); `rm -r` is refused anywhere.
 */
export const WRITERS = new Set([
  "tee",
  "cp",
  "mv",
  "ln",
  "install",
  "rm",
  "rmdir",
  "mkdir",
  "touch",
  "chmod",
  "chown",
  "chgrp",
  "truncate",
  "shred",
  "rsync",
  "dd",
  "unlink",
  "chattr",
  "setfacl",
  "mknod",
  "mkfifo",
  "patch",
  "tar",
  "cpio",
  "unzip",
  "curl",
  "wget",
  "scp",
  "sftp",
  "vi",
  "vim",
  "nano",
  "ed",
  "ex",
  "emacs",
  "sponge",
  "useradd",
  "usermod",
  "userdel",
  "groupadd",
  "passwd",
  "chpasswd",
  "visudo",
  "update-alternatives",
  "systemd-tmpfiles",
])

/** `rm -r`, `rm -Rf`, `rm --recursive`, `rm -fr`: recursive deletion. */
export function isRecursiveRemove(args: readonly string[]): boolean {
  for (const arg of args) {
    if (arg === "--") break
    if (/^--recursive$|^--r(e(c(u(r(s(i(ve?)?)?)?)?)?)?)?$/.test(arg)) return true
    if (/^-[A-Za-z]*[rR]/.test(arg) && !arg.startsWith("--")) return true
  }
  return false
}
