/**
 * Where a command may hide in the arguments of a program that needs approval. Programs dupin does
 * not model run words of their arguments as commands in ways no table can list: `git -c
 * alias.x='!rm -r d' x`, `ssh -o ProxyCommand='…'`, `zip -TT 'cmd'`, `tar --to-command=…`,
 * `sort --compress-program=…`, `man -P`, `less +'!cmd'`, `gdb -ex 'shell cmd'`, `fakeroot rm -r
 * d`. A human approving one of them must still never run a form refused even with approval, so
 * the policy looks for those forms in every suffix of these word sequences.
 */

/** Longest sequence searched; a longer one is refused whole (the search runs on the event loop). */
export const MAX_EMBEDDED_WORDS = 64

/** Characters that end a word where a program's own command language would (shell, git `!`, less `+!`). */
const SEPARATORS = /[\s;&|()<>`'"!{}=+\\]+/

/**
 * The argv itself, and for each argument that holds more than one word, its words: `-ex 'shell
 * rm -r d'` gives `shell rm -r d`, whose suffix `rm -r d` is then classified.
 */
export function embeddedSequences(args: readonly string[]): string[][] {
  const sequences: string[][] = [[...args]]
  for (const arg of args) {
    const words = arg.split(SEPARATORS).filter((w) => w.length > 0)
    if (words.length > 1 || (words.length === 1 && words[0] !== arg)) sequences.push(words)
  }
  return sequences
}
