import { existsSync, readdirSync, statSync } from "node:fs"
import { join, resolve } from "node:path"
import { ConfigError } from "../errors.ts"
import { CASE_FILE, type EvalCase, readCase } from "./case-file.ts"

/**
 * The cases under `dirs`: each is a case folder (it holds `test_case.yaml`) or a folder of case
 * folders, as HolmesGPT's `test_ask_holmes/` is. Every folder is read before any case runs, so a
 * broken fixture stops the run before it spends a token.
 */
export function loadCases(dirs: readonly string[]): EvalCase[] {
  return dirs.flatMap((dir) => caseFolders(resolve(dir))).flatMap((folder) => readCase(folder))
}

function caseFolders(dir: string): string[] {
  if (!existsSync(dir)) throw new ConfigError(`${dir}: no such folder`, dir)
  if (!statSync(dir).isDirectory())
    throw new ConfigError(`${dir}: not a folder; give the folder of eval cases`, dir)
  if (existsSync(join(dir, CASE_FILE))) return [dir]
  const folders = readdirSync(dir)
    .sort()
    .map((name) => join(dir, name))
    .filter((path) => statSync(path).isDirectory() && existsSync(join(path, CASE_FILE)))
  if (folders.length === 0) throw new ConfigError(`${dir}: no ${CASE_FILE} in it or in its subfolders`, dir)
  return folders
}

/** Cases carrying at least one of `tags`; all cases when no tag is asked for. */
export function withTags(cases: readonly EvalCase[], tags: readonly string[]): EvalCase[] {
  if (tags.length === 0) return [...cases]
  return cases.filter((c) => c.tags.some((t) => tags.includes(t)))
}
