"""Spark Connect plans read into a PlanStore, in the form the engine reads classic plans in.

A Connect plan is unresolved: a relation names its columns as the user wrote them, functions by
name, and leaves types to the server's analyzer. The engine (translate/spark_plan.py) reads
resolved plans: every column one attribute with an id and a type, casts written out. This package
resolves a Connect relation tree into such records on the client side, asking the server only
for what the protocol answers, each relation's schema (`AnalyzePlan`), and writes the records in
Catalyst's JSON shapes (`Project`, `Filter`, `AttributeReference`, `EqualTo`...), so that everything
after the trace is the same for both kinds of session.

Soundness before coverage. A relation is read only when every name in it resolves to exactly
one input column, every function is one whose Catalyst form and result type are known here, the
implicit casts Spark would add are the numeric widenings written out (casts.py; anything else
that needs a cast is refused), and the columns computed here have the names and types the
server's schema gives them. Anything else becomes an `Opaque` record: a barrier with the reason,
over its inputs (translated as usual), with the server's schema as its output, so a filter never
moves through what was not understood.

Each relation is read once per kernel: the client gives every relation a plan id that stays
with it in every later plan made from it, so a relation met again (the input of the next call of
a pipeline) is found by that id. Reading the plans of a pipeline of K calls asks for at most K
schemas, when the trace is pulled, never while the notebook runs.

The parts, by job: encoder.py walks a relation tree (each relation once, what is not read an
Opaque barrier); records.py writes the records and checks columns against the server's schema;
shapes.py holds the records' Catalyst shapes; scope.py resolves names and expressions against a
relation's input columns; casts.py the types and implicit casts; projections.py, windows.py,
aggregates.py and operators.py read the relations of each kind.
"""
