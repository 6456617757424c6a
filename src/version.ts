declare const DUPIN_VERSION: string | undefined
declare const DUPIN_COMMIT: string | undefined

/** Version and commit, embedded by build.ts; "dev" when running from source. */
export const VERSION: string = typeof DUPIN_VERSION === "string" ? DUPIN_VERSION : "0.1.0-dev"
export const COMMIT: string = typeof DUPIN_COMMIT === "string" ? DUPIN_COMMIT : "source"
