"""Showing derived results: plain text and rich tables, LaTeX, SVG wiring diagrams, notebook
display. (The site's calculator belongs to the site generator: ``docs_src/calculator``.)"""
