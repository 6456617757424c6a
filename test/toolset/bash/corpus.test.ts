import { corpusSuite } from "./corpus-suite.ts"

// Containment off: the validator alone stands between a command and the host (issue 18.8).
corpusSuite("off")
