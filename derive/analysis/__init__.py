"""Questions asked of a derived stack: cost (FLOPs, memory), solve (largest size in a budget),
compare (symbolic difference of two configurations), vectorize (counts over arrays)."""
