"""Questions asked of a derived stack or model: cost (FLOPs, memory; with stored — the weights as a quantized
checkpoint stores them —, served — the formats a cache is served in — and fit — what a memory budget holds),
solve (largest size in a budget), compare (symbolic difference of two configurations), vectorize (counts over
arrays)."""
