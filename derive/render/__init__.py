"""Showing derived results: plain text and rich tables, LaTeX, SVG wiring diagrams, notebook
display, and the calculator's JavaScript."""
