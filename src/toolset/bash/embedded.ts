import { parseCommand } from "./parse.ts"
import { scriptCommands } from "./rules/script-commands.ts"

/**
 * Where a command may hide in the arguments of a program that needs approval. Programs dupin does
 * not model run words of their arguments as commands in ways no table can list: `git -c
 * alias.x='!rm -r d' x`, `ssh -o ProxyCommand='…'`, `zip -TT 'cmd'`, `tar --to-command=…`,
 * `sort --compress-program=…`, `man -P`, `less +'!cmd'`, `gdb -ex 'shell cmd'`, `fakeroot rm -r
 * d`. A human approving one of them must still never run a form refused even with approval, so
 * the policy looks for those forms in every suffix of these word sequences.
 */

/**
 * Where a command language other than the shell's would end a word (`system("rm -r d")` in perl,
 * `os.system('…')`): the plain split. `=` and `+` stay inside words (`--set env=prod`).
 */
const SEPARATORS = /[\s;&|()<>`'"!{}\\,]+/

export type Embedded = {
  /** Word sequences any suffix of which may be run as a command. */
  sequences: string[][]
  /** An argument with shell text dupin cannot read (`$(…)`, `${…}`, `$'…'`, backquotes), if any. */
  unreadable?: string
}

/**
 * The argv itself, and each argument read as a shell reads it (quotes and escapes removed:
 * `'!r""m -r d'` is `rm -r d`; `;`, `&&`, `if` scripts by their commands), whole and after a
 * `name=` or a leading `!`/`+!`, and plainly split for other languages.
 */
export function embeddedCommands(args: readonly string[]): Embedded {
  const sequences: string[][] = [[...args]]
  let unreadable: string | undefined
  for (const arg of args) {
    if (!/[\s;&|()<>`'"\\$!=]/.test(arg)) continue
    sequences.push(arg.split(SEPARATORS).filter((w) => w.length > 0))
    // The text after a `name=` or a leading `!`/`+!` is what a program would hand to a shell.
    const texts = new Set([arg, arg.slice(arg.indexOf("=") + 1)].map((t) => t.replace(/^\+?!?/, "")))
    for (const text of texts) {
      const parsed = parseCommand(text)
      if (parsed.ok) sequences.push(...parsed.stages)
      else sequences.push(...(scriptCommands(text)?.commands ?? []))
      // Substitutions and ANSI-C quotes spell words the text does not show; `$1` in an awk
      // program or `{$.x}` in a jsonpath spells none.
      if (!parsed.ok && /\$[({']|`/.test(text)) unreadable ??= arg
    }
  }
  return { sequences, unreadable }
}
