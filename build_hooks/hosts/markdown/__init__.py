"""The Python-Markdown extension: fences through pymdownx.superfences, inline values, the pin in
prose, and the state one build shares across pages."""
