"""Contexts: what generated resolvers receive as their first argument ``ctx``.

Takes: the calls a resolver makes — ``ctx.roll(rv, …)`` is its ONLY source of
randomness; ``ctx.call(fn, args, …)`` calls a procedure that rolls dice;
``ctx.loop(items)`` announces a loop over a list; ``ctx.runs(n, src)`` gives the
run numbers of a bounded loop (``repeat at most N times``), counting each run;
``ctx.repeat(fn, args, …)`` runs the body of a ``repeat … until`` until its condition holds;
``ctx.sources(pairs)`` gives the modifiers of a ``stack`` that apply (the traced
context lists each by its source); the traced resolvers also
report ``ctx.enter``/``ctx.leave`` around each procedure body, ``ctx.step``
for numbered steps and ``ctx.let`` for local bindings.
Produces, depending on the implementation:

* :class:`SampleContext` — one random run, with ``random.Random(seed)``: the
  values drawn by simulating the dice, and (optionally) a :class:`Trace`;
* :class:`ExactContext` — the exact distribution of a resolver's results,
  found by replaying it over the outcomes of its rolls (see below).

Both count their work (dice drawn, runs, outcomes, loop elements) against a
limit, ``max_work``; past it they stop with a :class:`WorkLimitError` naming
the procedure, the step, the roll and the inputs, instead of running for hours.

A resolver is written once, as ordinary straight-line Python, and works with
both contexts::

    def resolver(ctx, p):
        ctx.enter("resolver", "Resolución", "II.4", "03-ejemplo.rules:10", {"p": p})
        ctx.step(1, "Tirada", "II.4", "03-ejemplo.rules:11")
        tirada = ctx.let("tirada", ctx.roll(std_die(6), "tirada"))
        return ctx.leave(tirada >= p)

Exact enumeration replays the resolver once per explored outcome. A roll may
say which values the rest of the procedure still reads (``state``, a function
of the rolled value returning them as a tuple; the compiler writes it from a
liveness analysis). Two paths reaching the same roll with equal states have the
same future, so the distribution of results from that point is computed once
and reused: the cost follows the number of distinct states, not of paths.
A call of a procedure that rolls dice (``ctx.call``) becomes one choice among
the callee's results, each computed once per distinct arguments.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from math import gcd, lcm
from typing import Any

from .dice import RandomVariable
from .errors import RuleError
from .messages import DEFAULT_LANGUAGE, N_, Described, Joined, Phrase, translate
from .trace import Trace
from .values import format_value

__all__ = ["Context", "SampleContext", "ExactContext", "WorkLimitError", "DEFAULT_MAX_WORK", "DEFAULT_MAX_PATHS"]

DEFAULT_MAX_WORK = 5_000_000
"""Default work limit of one resolution (dice drawn, resolver runs, outcomes
examined, loop elements): a few seconds of work at most."""

DEFAULT_MAX_PATHS = 2_000_000
"""Default limit on the number of times :func:`rulebook.runtime.exact` replays a resolver."""

TRACED_RUNS = 100
"""Runs of one sampled ``repeat`` recorded in its trace; later runs are only counted."""

State = Callable[[Any], tuple] | None
Dist = tuple[dict[Any, int], int]  # {result: numerator}, common denominator


class WorkLimitError(RuleError):
    """A resolution needs more work than its limit (``max_work``): too many dice,
    states or loop iterations. ``str()`` names the procedure, the step, the roll
    and the inputs that made it grow."""


class Context:
    """The interface generated resolvers use. Subclasses implement :meth:`roll`."""

    __slots__ = ()

    def roll(self, rv: RandomVariable, label: str = "", src: str | None = None, state: State = None,
             reads: tuple[str, ...] | None = None) -> Any:
        """A value of the random variable ``rv``. ``label`` and ``src``: the roll as
        written and where; ``state``: what the rest of the procedure reads, as a
        function of the value; ``reads``: the only counts of a ``Counts`` value read."""
        raise NotImplementedError

    def call(self, fn: Callable[..., Any], args: dict, src: str | None = None, state: State = None) -> Any:
        """The result of ``fn(ctx, **args)``, a procedure that rolls dice."""
        return fn(self, **args)

    def loop(self, items: Any) -> Any:
        """``items``, about to be looped over (counted as work)."""
        return items

    def runs(self, count: int, src: str | None = None) -> Iterator[int]:
        """The run numbers ``1 … count`` of a bounded loop (``repeat at most N times``),
        each counted as one unit of work when it starts; a traced sample shows each run."""
        return iter(range(1, count + 1))

    def repeat(self, fn: Callable[..., tuple[bool, tuple]], args: dict, src: str | None = None, until: str = "",
               procedure: str = "", step: int | None = None, state: State = None) -> tuple:
        """``repeat { … } until c``: ``fn(ctx, **args)`` runs the body once and returns
        ``(c, values bound by the body)``; the values of the run where ``c`` holds.
        ``until`` is the condition as written, ``procedure`` and ``step`` where the
        repeat stands (for messages); ``state`` as for :meth:`roll`. A traced sampled
        repeat records its first :data:`TRACED_RUNS` runs, then one line counting the rest."""
        raise NotImplementedError

    def sources(self, items: tuple[tuple[str, Any], ...], src: str | None = None) -> tuple:
        """The modifiers of a ``stack``: of ``(source, value)`` pairs, the values that
        apply (not 0), in order; a traced context records each one by its source."""
        return tuple(value for _, value in items if value != 0)

    def enter(self, proc_name: str, title: str, ref: str, src: str, args: dict) -> None:
        """A procedure body starts (``args``: its arguments by name)."""

    def leave(self, result: Any) -> Any:
        """The current procedure returns ``result``; returns ``result`` unchanged."""
        return result

    def step(self, number: int, label: str, ref: str, src: str) -> None:
        """A numbered step of the current procedure starts."""

    def let(self, name: str, value: Any, src: str | None = None) -> Any:
        """Record the local binding ``name = value``; returns ``value`` unchanged."""
        return value


def _not_random(rv: Any, src: str | None) -> RuleError:
    return RuleError(N_("cannot roll %(value)r: it is not random"), src, {"value": rv})


def _where(frame: tuple | None, label: str, chain: list[tuple[str, dict]]) -> Joined:
    """``in p, step 2 «…»; roll …; data of p: x = 1``: where work grew, for a work-limit message."""
    parts: list = []
    if frame is not None:
        name, args, step = frame
        if step is None:
            parts.append(Phrase(N_("in %(procedure)s"), procedure=name))
        else:
            parts.append(Phrase(N_("in %(procedure)s, step %(step)s «%(label)s»"), procedure=name, step=step[0], label=step[1]))
        chain = [*chain, (name, args)] if not chain or chain[-1][0] != name else chain
    if label:
        parts.append(label)
    for name, args in reversed(chain):
        shown = ", ".join(f"{k} = {_short(v)}" for k, v in args.items())
        if shown:
            parts.append(Phrase(N_("data of %(procedure)s: %(data)s"), procedure=name, data=shown))
        else:
            parts.append(Phrase(N_("data of %(procedure)s: (none)"), procedure=name))
    return Joined(parts, "; ")


def _repeat_where(procedure: str, step: int | None) -> Phrase | str:
    """``in p, step 2``: where a repeat stands, for its messages."""
    if not procedure:
        return ""
    if step is None:
        return Phrase(N_("in %(procedure)s"), procedure=procedure)
    return Phrase(N_("in %(procedure)s, step %(step)s"), procedure=procedure, step=step)


def _short(value: Any) -> str:
    text = format_value(value)
    return text if len(text) <= 60 else text[:57] + "…"


def _over_limit(what: Phrase, limit: int, where: Joined | Phrase | str, src: str | None) -> WorkLimitError:
    if where:
        message = N_("too much work: %(what)s exceed the limit of %(limit)s units of work (%(where)s). "
                     "Reduce the data or raise the limit (max_work; on the command line, --max-work)")
    else:
        message = N_("too much work: %(what)s exceed the limit of %(limit)s units of work. "
                     "Reduce the data or raise the limit (max_work; on the command line, --max-work)")
    return WorkLimitError(message, src, {"what": what, "limit": limit, "where": where})


class SampleContext(Context):
    """Resolves one random run.

    Args:
        seed: seed of the ``random.Random`` used for every roll (``None``: from the OS).
        trace: record a :class:`Trace` (``self.trace``); when False the tracing
            calls are cheap no-ops and ``self.trace`` is ``None``.
        max_work: limit on the dice and tokens drawn and the list elements looped
            over by everything run with this context (``self.work`` counts them).
        lang: the players' language of the trace's phrases and dice descriptions
            (a generated package's ``LANG``; see :mod:`rulebook.runtime.messages`).
    """

    __slots__ = ("rng", "trace", "work", "max_work", "lang")

    def __init__(self, seed: int | None = None, trace: bool = True, max_work: int = DEFAULT_MAX_WORK,
                 lang: str = DEFAULT_LANGUAGE) -> None:
        self.rng = random.Random(seed)
        self.trace: Trace | None = Trace(lang) if trace else None
        self.work = 0
        self.max_work = max_work
        self.lang = lang

    def roll(self, rv: RandomVariable, label: str = "", src: str | None = None, state: State = None,
             reads: tuple[str, ...] | None = None) -> Any:
        try:
            self.work += rv.size
        except AttributeError:
            raise _not_random(rv, src) from None
        if self.work > self.max_work:
            self.work -= rv.size
            raise self._over(Phrase(N_("%(n)s dice or tokens (%(roll)s)"), n=rv.size, roll=Described(rv)), label, src)
        if self.trace is None:
            return rv.sample(self.rng)
        value = rv.sample(self.rng)
        self.trace.roll(label, rv.describe(self.lang), value, src)
        return value

    def loop(self, items: Any) -> Any:
        work = self.work + len(items)
        if work > self.max_work:
            raise self._over(Phrase(N_("%(n)s elements looped over"), n=len(items)), "", None)
        self.work = work
        return items

    def runs(self, count: int, src: str | None = None) -> Iterator[int]:
        for number in range(1, count + 1):
            if self.work + 1 > self.max_work:
                raise self._over(Phrase(N_("%(n)s runs of a loop"), n=number), "", src)
            self.work += 1
            if self.trace is not None:
                self.trace.let(translate(N_("run"), None, self.trace.lang), number, src)
            yield number

    def repeat(self, fn: Callable[..., tuple[bool, tuple]], args: dict, src: str | None = None, until: str = "",
               procedure: str = "", step: int | None = None, state: State = None) -> tuple:
        runs = 0
        trace = self.trace
        try:
            while True:
                if runs == TRACED_RUNS:
                    self.trace = None  # later runs are counted, not traced: the trace stays bounded
                try:
                    done, values = fn(self, **args)
                except WorkLimitError:
                    if not runs:
                        raise
                    done, values = False, ()
                    self.work = self.max_work  # the runs so far used the whole budget
                runs += 1
                if self.trace is not None:
                    self.trace.let(f"until {until}", done, src)
                if done:
                    return values
                if self.work + 1 > self.max_work:
                    raise _over_limit(
                        Phrase(N_("%(n)s repeats without «%(until)s» holding in one resolution"), n=runs, until=until),
                        self.max_work, _repeat_where(procedure, step), src,
                    )
                self.work += 1
        finally:
            self.trace = trace
            if trace is not None and runs > TRACED_RUNS:
                name = translate(N_("runs of the repeat not shown"), None, trace.lang)
                trace.let(name, runs - TRACED_RUNS, src)

    def sources(self, items: tuple[tuple[str, Any], ...], src: str | None = None) -> tuple:
        applied = tuple((source, value) for source, value in items if value != 0)
        if self.trace is not None:
            for source, value in applied:
                self.trace.let(f"«{source}»", value, src)
        return tuple(value for _, value in applied)

    def _over(self, what: Phrase, label: str, src: str | None) -> WorkLimitError:
        frame = None
        if self.trace is not None and self.trace.current is not None:
            current = self.trace.current
            step = (current.steps[-1].number, current.steps[-1].label) if current.steps else None
            frame = (current.name, current.args, step)
        return _over_limit(Phrase(N_("%(what)s in one resolution"), what=what), self.max_work, _where(frame, label, []), src)

    def enter(self, proc_name: str, title: str, ref: str, src: str, args: dict) -> None:
        if self.trace is not None:
            self.trace.enter(proc_name, title, ref, src, args)

    def leave(self, result: Any) -> Any:
        if self.trace is not None:
            self.trace.leave(result)
        return result

    def step(self, number: int, label: str, ref: str, src: str) -> None:
        if self.trace is not None:
            self.trace.step(number, label, ref, src)

    def let(self, name: str, value: Any, src: str | None = None) -> Any:
        if self.trace is not None:
            self.trace.let(name, value, src)
        return value


# ---------------------------------------------------------------------------- exact enumeration


class _Known(BaseException):
    """Ends a run that reached a state whose distribution of results is already known."""

    def __init__(self, dist: Dist) -> None:
        self.dist = dist


class _Results:
    """The results of a procedure call as a choice: ``weighted()`` like a random variable's."""

    __slots__ = ("name", "_weighted")
    size = 0

    def __init__(self, name: str, dist: Dist) -> None:
        weights, den = dist
        self.name = name
        self._weighted = (tuple(weights), tuple(weights.values()), den)

    def weighted(self) -> tuple[tuple, tuple[int, ...], int]:
        return self._weighted

    def is_computed(self) -> bool:
        return True

    def describe(self, lang: str = DEFAULT_LANGUAGE) -> str:
        return translate(N_("result of %(procedure)s"), {"procedure": self.name}, lang)


class _Node:
    """A choice on the path being explored: the outcomes of one roll or call, the one
    chosen now, and the results found so far below the outcomes already explored
    (``found``: {denominator: {result: numerator}})."""

    __slots__ = ("rv", "values", "nums", "den", "idx", "site", "state", "key", "found", "where")  # state: of each outcome

    def __init__(self, rv: Any, weighted: tuple, site: tuple | None, state: State, where: tuple) -> None:
        self.rv = rv
        self.where = where  # (frame, label, src) of the choice, for messages
        self.values, self.nums, self.den = weighted
        self.idx = -1
        self.site = site
        # every outcome's state now, while the resolver's locals hold the values of this
        # roll (a bounded loop gives its locals new values in each run)
        self.state = None if site is None else [state(value) for value in self.values]
        self.key: tuple | None = None
        self.found: dict[int, dict[Any, int]] = {}

    def add(self, i: int, dist: Dist) -> None:
        """The results below outcome ``i``, weighted by its probability."""
        results, den = dist
        weight = self.nums[i]
        bucket = self.found.get(self.den * den)
        if bucket is None:
            self.found[self.den * den] = {result: weight * num for result, num in results.items()}
            return
        get = bucket.get
        for result, num in results.items():
            bucket[result] = get(result, 0) + weight * num

    def total(self) -> Dist:
        """Every result below this choice, over one denominator, reduced."""
        if len(self.found) == 1:
            (den, results), = self.found.items()
        else:
            den = lcm(*self.found)
            results = {}
            for d, part in self.found.items():
                scale = den // d
                for result, num in part.items():
                    results[result] = results.get(result, 0) + num * scale
        common = gcd(den, *results.values())
        if common > 1:
            results = {r: n // common for r, n in results.items()}
            den //= common
        return results, den


def _frozen(value: Any) -> Any:
    """A hashable stand-in for a resolver argument (maps become tuples of items)."""
    if isinstance(value, dict):
        return ("map", tuple((k, _frozen(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return tuple(_frozen(v) for v in value)
    return value


class _Session:
    """What the enumerations of one :func:`rulebook.runtime.exact` call share: the work
    budget, the results of procedure calls by arguments, and the chain of
    procedures being enumerated (for messages)."""

    __slots__ = ("max_work", "max_paths", "work", "runs", "calls", "chain")

    def __init__(self, max_work: int, max_paths: int) -> None:
        self.max_work = max_work
        self.max_paths = max_paths
        self.work = 0
        self.runs = 0
        self.calls: dict[tuple, _Results] = {}
        self.chain: list[tuple[str, dict]] = []

    def charge(self, units: int, what: Callable[[], Phrase], where: tuple) -> None:
        """Count ``units`` of work; past the limit, the error says ``what`` grew and
        ``where`` (``(frame, label, src)`` of the choice or loop)."""
        work = self.work + units
        if work > self.max_work:
            frame, label, src = where
            raise _over_limit(what(), self.max_work, _where(frame, label, self.chain), src)
        self.work = work


class ExactContext(Context):
    """Enumerates the outcomes of a resolver's rolls; driven by :meth:`distribution`.

    The path being explored is a list of :class:`_Node`, one per *branching*
    choice (rolls with a single outcome never branch). A run replays the chosen
    outcomes in order; the first roll past the end of the path adds a node.
    When a run ends, its result is added to the deepest node, which moves to
    its next outcome (a new run) or, when exhausted, hands its results up.
    Before exploring an outcome whose state (see the module docstring) was
    explored before, its known results are added at once.
    """

    __slots__ = ("_session", "_nodes", "_pos", "_memo", "_frames", "_numbers", "_results", "_every_path")

    def __init__(self, session: _Session | None = None, every_path: bool = False) -> None:
        self._session = session or _Session(DEFAULT_MAX_WORK, DEFAULT_MAX_PATHS)
        # every_path: ignore states and counts read, run called procedures inline: every path
        # of every roll, as exact enumeration first worked (an oracle for the compiler's analysis)
        self._every_path = every_path
        self._nodes: list[_Node] = []
        self._pos = 0
        self._memo: dict[tuple, Dist] = {}
        self._frames: list[list] = []
        # results are numbered as they are found: sums over nodes then add up small ints,
        # and a result (often a nested record) is hashed once, not once per level
        self._numbers: dict[Any, int] = {}
        self._results: list[Any] = []

    # The resolver's calls --------------------------------------------------
    def roll(self, rv: RandomVariable, label: str = "", src: str | None = None, state: State = None,
             reads: tuple[str, ...] | None = None) -> Any:
        if self._every_path:
            state = reads = None
        try:
            if reads is not None:
                rv = rv.counting(reads)
            computed = rv.is_computed()
        except AttributeError:
            raise _not_random(rv, src) from None
        if not computed:
            self._session.charge(rv.cost(), lambda: Phrase(N_("the results of %(roll)s"), roll=Described(rv)), (self.frame(), label, src))
        return self._choose(rv, rv.weighted(), (src, label), state, label, src)

    def call(self, fn: Callable[..., Any], args: dict, src: str | None = None, state: State = None) -> Any:
        if self._every_path:
            return fn(self, **args)
        session = self._session
        try:
            key: tuple | None = (fn, tuple(args.items()))
            results = session.calls.get(key)
        except TypeError:  # a map among the arguments
            try:
                key = (fn, _frozen(args))
                results = session.calls.get(key)
            except TypeError:
                key, results = None, None
        if results is None:
            results = _Results(getattr(fn, "__name__", "procedimiento"), ExactContext(session).distribution(fn, (), args))
            if key is not None:
                session.calls[key] = results
        return self._choose(results, results.weighted(), (src, fn), state, "", src)

    def repeat(self, fn: Callable[..., tuple[bool, tuple]], args: dict, src: str | None = None, until: str = "",
               procedure: str = "", step: int | None = None, state: State = None) -> tuple:
        """The body's runs are independent (it reads only values fixed before the
        repeat), so the values kept are distributed as one run's values *given*
        that the condition holds: one run's distribution, restricted to the runs
        where it holds and normalised. Computed once per distinct arguments."""
        if self._every_path:
            state = None
        session = self._session
        try:
            key: tuple | None = ("repeat", fn, tuple(args.items()))
            results = session.calls.get(key)
        except TypeError:  # a map among the arguments
            try:
                key = ("repeat", fn, _frozen(args))
                results = session.calls.get(key)
            except TypeError:
                key, results = None, None
        if results is None:
            weights, _ = ExactContext(session, self._every_path).distribution(fn, (), args)
            kept = {values: weight for (done, values), weight in weights.items() if done}
            if not kept:
                where = _repeat_where(procedure, step)
                if where:
                    message = N_("the condition «%(until)s» of the repeat %(where)s holds on no possible roll: "
                                 "the repeat would never end")
                else:
                    message = N_("the condition «%(until)s» of the repeat holds on no possible roll: "
                                 "the repeat would never end")
                raise RuleError(message, src, {"until": until, "where": where})
            total = sum(kept.values())
            common = gcd(total, *kept.values())
            results = _Results(getattr(fn, "__name__", "repeat"), ({v: w // common for v, w in kept.items()}, total // common))
            if key is not None:
                session.calls[key] = results
        return self._choose(results, results.weighted(), (src, fn), state, "", src)

    def runs(self, count: int, src: str | None = None) -> Iterator[int]:
        session = self._session
        for number in range(1, count + 1):
            session.charge(1, lambda: Phrase(N_("%(n)s runs of a loop"), n=number), (self.frame(), "", src))
            yield number

    def loop(self, items: Any) -> Any:
        session = self._session
        work = session.work + len(items)
        if work > session.max_work:
            session.charge(len(items), lambda: Phrase(N_("%(n)s elements looped over"), n=len(items)), (self.frame(), "", None))
        session.work = work
        return items

    def enter(self, proc_name: str, title: str, ref: str, src: str, args: dict) -> None:
        if not self._frames and self._session.chain:  # the procedure enumerated, named as the rules do
            self._session.chain[-1] = (proc_name, args)
        self._frames.append([proc_name, args, None])

    def leave(self, result: Any) -> Any:
        if self._frames:
            self._frames.pop()
        return result

    def step(self, number: int, label: str, ref: str, src: str) -> None:
        if self._frames:
            self._frames[-1][2] = (number, label)

    def let(self, name: str, value: Any, src: str | None = None) -> Any:
        return value

    def frame(self) -> tuple | None:
        """``(procedure, arguments, (step number, label) or None)`` where the run is now."""
        return tuple(self._frames[-1]) if self._frames else None

    # Choices ---------------------------------------------------------------
    def _choose(self, rv: Any, weighted: tuple, site: tuple, state: State, label: str, src: str | None) -> Any:
        """The outcome of a roll or call: the only one, the one chosen on the path being
        replayed, or (a new choice) the first whose results are not known yet."""
        values = weighted[0]
        if len(values) == 1:
            return values[0]
        nodes = self._nodes
        pos = self._pos
        if pos < len(nodes):
            node = nodes[pos]
            if rv is not node.rv and weighted != (node.values, node.nums, node.den):
                raise RuleError(
                    N_("the procedure is not deterministic: replaying a path it rolled %(roll)s where it rolled %(before)s before"),
                    src, {"roll": Described(rv), "before": Described(node.rv)},
                )
            self._pos = pos + 1
            return values[node.idx]
        where = (self.frame(), label, src)
        self._session.charge(len(values), lambda: Phrase(N_("%(n)s results of %(roll)s"), n=len(values), roll=Described(rv)), where)
        node = _Node(rv, weighted, site if state is not None else None, state, where)
        if not self._next_outcome(node):
            raise _Known(node.total())
        nodes.append(node)
        self._pos = pos + 1
        return values[node.idx]

    def _next_outcome(self, node: _Node) -> bool:
        """Move ``node`` to its next outcome whose results are not known yet (adding the
        known ones on the way); False when every outcome has been explored."""
        memo = self._memo
        for i in range(node.idx + 1, len(node.values)):
            key = None
            if node.site is not None:
                key = (node.site, node.state[i])
                try:
                    known = memo.get(key)
                except TypeError:  # a state holding an unhashable value: not remembered
                    key, known = None, None
                if known is not None:
                    node.add(i, known)
                    continue
            node.idx = i
            node.key = key
            return True
        return False

    # Driving the enumeration -----------------------------------------------
    def _number(self, result: Any) -> int:
        """The number of ``result`` among the results found so far."""
        results = self._results
        try:
            number = self._numbers.setdefault(result, len(results))  # one hash of a result (often nested records)
        except TypeError:
            raise RuleError(N_("the result %(result)r cannot be grouped (it is not hashable)"), None, {"result": result}) from None
        if number == len(results):
            results.append(result)
        return number

    def distribution(self, fn: Callable[..., Any], args: tuple = (), kwargs: dict | None = None) -> Dist:
        """The results of ``fn(self, *args, **kwargs)`` with their probabilities,
        ``({result: numerator}, denominator)``."""
        pairs, den = self.weighted_results(fn, args, kwargs)
        return dict(pairs), den

    def weighted_results(self, fn: Callable[..., Any], args: tuple = (), kwargs: dict | None = None) -> tuple[list[tuple[Any, int]], int]:
        """What :meth:`distribution` gives, as ``[(result, numerator), …]`` (distinct
        results, in the order they were found) and the denominator: no result is
        hashed again."""
        kwargs = kwargs or {}
        session = self._session
        name = getattr(fn, "__name__", "procedimiento")
        session.chain.append((name, kwargs))
        try:
            numbered, den = self._explore(fn, args, kwargs, session)
        finally:
            session.chain.pop()
        results = self._results
        return [(results[number], weight) for number, weight in numbered.items()], den

    def _explore(self, fn: Callable[..., Any], args: tuple, kwargs: dict, session: _Session) -> Dist:
        nodes, memo = self._nodes, self._memo
        while True:
            session.runs += 1
            if session.runs > session.max_paths:
                raise RuleError(
                    N_("the exact distribution of %(procedure)s needs more than %(n)s paths of rolls; "
                       "reduce the number of dice or raise max_paths"),
                    None, {"procedure": getattr(fn, "__name__", fn), "n": session.max_paths},
                )
            self._pos = 0
            self._frames.clear()
            try:
                result = fn(self, *args, **kwargs)
                if self._pos != len(nodes):
                    raise RuleError(N_("the procedure is not deterministic: replaying a path it made fewer rolls"), None, {})
                found: Dist = ({self._number(result): 1}, 1)
            except _Known as known:
                found = known.dist
            where = nodes[-1].where if nodes else (None, "", None)
            session.charge(self._pos + 1, lambda: Phrase(N_("the paths of rolls explored")), where)
            while nodes:
                node = nodes[-1]
                if node.key is not None:
                    memo[node.key] = found
                    session.charge(len(found[0]), lambda: Phrase(N_("the states remembered")), node.where)
                node.add(node.idx, found)
                if self._next_outcome(node):
                    break
                found = node.total()
                nodes.pop()
            else:
                return found
