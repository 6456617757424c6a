import pkg from "../package.json" with { type: "json" }

declare const DUPIN_VERSION: string | undefined
declare const DUPIN_COMMIT: string | undefined

/** Version and commit, embedded by build.ts; from source (a checkout or an installed package), the package's version and commit "source". */
export const VERSION: string = typeof DUPIN_VERSION === "string" ? DUPIN_VERSION : pkg.version
export const COMMIT: string = typeof DUPIN_COMMIT === "string" ? DUPIN_COMMIT : "source"
