"""Facts derived from the IR and from the generated package, for the emitters.

Reads: a checked :class:`rulebook.compiler.ir.Program`, or a generated resolver package
(already imported by the pipeline). Produces: what each roll still reads
(:mod:`.liveness`), what each example and odds table reads (:mod:`.reads`), worked
examples evaluated over exact distributions (:mod:`.examples`, memoised per package by
:mod:`.evaluations`), odds tables (:mod:`.odds`) and whether a modified roll has a
fixed shape (:mod:`.rolls`, asked by both backends). Writes no file.
"""
