import { deny } from "../verdict.ts"
import type { ProgramRule } from "./program.ts"
import { ruleFor } from "./registry.ts"

/**
 * Programs that create, change or delete the files named in their arguments. Any of them touching
 * /etc is refused even with approval (see hard-deny.ts); `rm -r` is refused anywhere.
 */
const writer = (name: string, traits: Partial<ProgramRule> = {}): ProgramRule => ({
  writes: true,
  examples: { ask: [`${name} /tmp/x`], deny: [`${name} /etc/x`] },
  ...traits,
})

export const WRITERS: Record<string, ProgramRule> = {
  ...Object.fromEntries(
    (
      "tee cp mv ln install rmdir mkdir touch chmod chown chgrp truncate shred rsync dd unlink chattr " +
      "setfacl mknod mkfifo patch tar cpio unzip curl scp sftp vi vim nano ed ex emacs sponge useradd " +
      "usermod userdel groupadd passwd chpasswd visudo sudoedit update-alternatives systemd-tmpfiles"
    )
      .split(" ")
      .map((name) => [name, writer(name)]),
  ),
  rm: writer("rm", {
    refuse: (args) => (isRecursiveRemove(args) ? deny("rm -r deletes trees") : undefined),
    examples: {
      ask: ["rm /tmp/x"],
      deny: ["rm -fr /tmp/x", "rm -R /tmp/x", "rm --recur /tmp/x", "rm /etc/x"],
    },
  }),
  wget: writer("wget", {
    outputOptions: ["-O", "--output-document", "-o", "--output-file", "-a", "--append-output"],
    examples: { ask: ["wget https://example.com/x"], deny: ["wget -O /etc/x https://example.com/x"] },
  }),
}

/** `rm -r`, `rm -Rf`, `rm --recursive`, `rm -fr`: recursive deletion. */
function isRecursiveRemove(args: readonly string[]): boolean {
  for (const arg of args) {
    if (arg === "--") break
    if (/^--recursive$|^--r(e(c(u(r(s(i(ve?)?)?)?)?)?)?)?$/.test(arg)) return true
    if (/^-[A-Za-z]*[rR]/.test(arg) && !arg.startsWith("--")) return true
  }
  return false
}

/**
 * The files `name` would write through an output option, however the value is attached
 * (`-o F`, `-oF`, `--output=F`): the policy refuses them under /etc even when approved.
 */
export function outputPaths(name: string, args: readonly string[]): string[] {
  const options = ruleFor(name)?.outputOptions ?? []
  const paths: string[] = []
  for (const [i, arg] of args.entries()) {
    for (const option of options) {
      if (arg === option && args[i + 1] !== undefined) paths.push(args[i + 1]!)
      else if (option.startsWith("--") && arg.startsWith(`${option}=`))
        paths.push(arg.slice(option.length + 1))
      else if (!option.startsWith("--") && arg.startsWith(option) && arg.length > option.length)
        paths.push(arg.slice(option.length))
    }
  }
  return paths
}

/**
 * Files a program writes that are named inside its program text or by position, not by an
 * option: sed's `w FILE`, awk's `print > "FILE"`, `uniq IN OUT` (see each rule's `writesNamed`).
 */
export function textWritePaths(name: string, args: readonly string[]): string[] {
  return ruleFor(name)?.writesNamed?.(args) ?? []
}
