/**
 * Every toolset written in code, one entry each, in the order they are listed (`dupin toolsets`,
 * `/api/info`). Adding one is adding its entry here: the config file, custom toolset files and the
 * override merge need no change. YAML toolsets come from toolsets/*.yaml (builtin/sources.ts).
 */

import { bashToolset } from "./bash/toolset.ts"
import { internetToolset } from "./internet/index.ts"
import type { ToolsetFactory } from "./kind.ts"
import { prometheusToolset } from "./prometheus/index.ts"
import { runbookToolset } from "./runbook.ts"
import { planningToolset } from "./todo.ts"

export const CODE_TOOLSETS: readonly ToolsetFactory[] = [
  planningToolset,
  runbookToolset,
  bashToolset,
  internetToolset,
  prometheusToolset,
]
