import { COMMIT, VERSION } from "../../version.ts"
import { noPositionals, type ParsedArgs } from "../args.ts"
import { writeStdout } from "../output.ts"

export async function versionCommand(args: ParsedArgs): Promise<number> {
  noPositionals(args, "version")
  await writeStdout(
    `dupin ${VERSION} (commit ${COMMIT}, bun ${Bun.version}, ${process.platform}-${process.arch})`,
  )
  return 0
}
