"""Backends: the typed IR (and the analyses' facts) → files of a build.

Reads: a checked :class:`rulebook.compiler.ir.Program`, never the AST. Produces, one
package per kind of output: :mod:`.python` (the resolver package), :mod:`.data` (JSON
documents and their schemas) and :mod:`.site` (the site's Markdown and mkdocs.yml). The
site may read the data (army documents); no backend imports another otherwise.
"""
