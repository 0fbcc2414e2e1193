"""The research flow's nodes: plan, search, merge, fetch, extract, index, evidence, reflect,
synthesise, verify, write.  Each reads its run-time needs from `ResearchContext`."""
