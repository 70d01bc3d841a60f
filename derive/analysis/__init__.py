"""Questions asked of a derived stack or model: cost (FLOPs, memory; with compute — a stack's operations and a
token's FLOPs —, stored — the weights as a quantized checkpoint stores them —, cache — what the inference cache
holds —, served — the formats a cache is served in —, fit — what a memory budget holds —, parallel — one GPU's
share — and figures — the sizes, dtypes and closed forms), solve (largest size in a budget), compare (symbolic
difference of two configurations), vectorize (counts over arrays)."""
