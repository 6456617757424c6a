/**
 * Names of the tools and toolset that dupin itself provides to every run. They live here, below
 * the loop, the context window and the toolsets that all need them, so none of those folders has
 * to import another to learn a name (an MCP server's tool may not take one of them).
 */

/** The planning tool of the `core_investigation` toolset. */
export const TODO_WRITE = "TodoWrite"
/** Pages and searches a tool output that was cut to fit the window. */
export const READ_TOOL_OUTPUT = "read_tool_output"
/** Finds and loads tools held back past the definitions budget. */
export const SEARCH_TOOLS = "search_tools"
/** The toolset that holds `TodoWrite`. */
export const PLANNING_TOOLSET = "core_investigation"

/** Names no configured tool may take: a tool by that name is renamed or refused. */
export const CORE_TOOL_NAMES: ReadonlySet<string> = new Set([TODO_WRITE, READ_TOOL_OUTPUT, SEARCH_TOOLS])
