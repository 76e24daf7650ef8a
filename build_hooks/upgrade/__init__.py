"""Upgrade day, as data: what moved against git (diff), between torch versions (drift, quote
drift), claims and their checks, and a chapter's corrections. Rendering lives in render/."""
