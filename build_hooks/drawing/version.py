"""The renderer's version: bump it for output changes not visible in the source (the drawing cache
also hashes the renderer's files, drawing/cache.py)."""

RENDERER_VERSION = "3"
