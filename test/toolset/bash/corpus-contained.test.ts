import { corpusSuite } from "./corpus-suite.ts"

// Containment on (bubblewrap where the host allows it): what an operator runs.
corpusSuite("auto")
