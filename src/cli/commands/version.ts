import { noPositionals, type ParsedArgs } from "../../commands/args.ts"
import { writeStdout } from "../../commands/output.ts"
import { COMMIT, VERSION } from "../../version.ts"

export async function versionCommand(args: ParsedArgs): Promise<number> {
  noPositionals(args, "version")
  await writeStdout(
    `dupin ${VERSION} (commit ${COMMIT}, bun ${Bun.version}, ${process.platform}-${process.arch})`,
  )
  return 0
}
