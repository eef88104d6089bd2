"""Play one tournament job: a deal (or a whole match) between entrants' bots.

:func:`play_job` seats one fresh bot per seat (``entrants[job.seats[s]]``),
plays the job's deal (``mode="deals"``) or the whole match seeded by the job
(``mode="matches"``) and returns a :class:`~arena.types.JobResult`. Apart
from the thinking times it is pure: the cards come from ``job.seed`` and the
bots' random streams from ``(job.seed, job.lineup, job.rotation)``, so the
same job gives the same result in any process or thread.

A bot that raises (``crash``), returns something that is not a legal
:class:`~core.actions.Action` (``illegal``), thinks longer than
the time limit in one call (``timeout``) or ends its process
(``died``: ``os._exit``, a signal, a crash in compiled code; the runner
finds the call and replays the job, see ``died`` in :func:`play_job`) gets
a :class:`~arena.types.Fault`; from that decision on its seat is played by the
``fallback`` bot (and by uniformly random legal actions should the fallback
fail too), so a job always completes.

How a call that runs too long is stopped: in the main thread a ``SIGALRM``
interval timer raises an internal exception inside the bot's Python code
(``time.sleep`` included); in any other thread (a Dask worker's) a watchdog
thread raises it there with ``PyThreadState_SetAsyncExc``, which takes
effect at the bot's next Python instruction, so a single long
``time.sleep`` or C call ends first. Either way a call that returns after
its limit is a ``timeout`` and its answer is discarded.

>>> from core.rules import Rules
>>> from arena.types import Entrant, Job
>>> entrants = [Entrant("rnd", "random"), Entrant("heu", "heuristic")]
>>> job = Job(index=0, key="g0-l0-r0", group=0, seed=7, lineup=0, rotation=0,
...           seats=(0, 1, 0, 1, 0))
>>> settings = TableSettings(Rules.preset("pagat", players=5), trusted="builtins")
>>> res = play_job(job, entrants, settings)
>>> len(res.deals), res.deals[0].seats, res.faults
(1, (0, 1, 0, 1, 0), ())
>>> d = res.deals[0]
>>> d.margins[d.maker] == d.total_points - 2 * d.opponents_points
True
>>> again = play_job(job, entrants, settings)
>>> again.deals == res.deals and again.record == res.record
True
"""

from __future__ import annotations

import io
import random
from collections.abc import Callable, Sequence
from typing import Any, Optional

from bots import BotError, make_bot
from bots.table import MESSAGE_CHARS as _MESSAGE_CHARS
from bots.table import answer_error, fresh_action, play_table
from bots.table import exception_line as _exc_line
from core.actions import EXPOSE, Action
from core.match import Match
from core.observe import Narrator, sees
from core.records import deal_record, match_record, write_records
from core.rules import Rules
from core.scoring import MAKER, card_margin, score_deal
from core.state import DRAW, MAX_REDEALS, State

from ..sandbox import protocol
from .guard import CallOutcome, guarded
from .entrants import BotRef
from .remote import RemoteSeat, StartFault, bot_seed, deal_seed, parse_action, pool
from .settings import TableSettings
from ..types import ArenaError, DealOutcome, Entrant, Fault, Job, JobResult

__all__ = ["CALL_METHODS", "Table", "play_job", "outcome_of", "match_winners", "watch_calls", "forfeit_outcome",
           "mark_forfeits"]


# ------------------------------------------------------------------ outcomes
def outcome_of(state: State, seats: Sequence[int]) -> DealOutcome:
    """The :class:`~arena.types.DealOutcome` of a finished deal.

    ``seats[s]`` is the entrant index holding seat ``s``. Margins follow
    :mod:`arena.tournament.duel`: ``total_points - 2 * opponents_points`` card points
    for every seat on the maker side, the negation for the others.
    """
    res = state.result
    if res is None:
        raise ArenaError(f"outcome: the deal is not over (seat {state.current_player()} to act)")
    n = state.rules.players
    if len(seats) != n:
        raise ArenaError(f"outcome: {len(seats)} entrants for {n} seats")
    total = state.rules.total_points
    maker_margin = float(card_margin(state.rules, res.opponents_points))
    return DealOutcome(
        seats=tuple(int(e) for e in seats), maker=res.maker, maker_side=tuple(sorted(res.maker_side)),
        opponents_points=res.opponents_points, total_points=total, maker_won=res.winner == MAKER,
        game_points=tuple(state.returns()),
        margins=tuple(maker_margin if s in res.maker_side else -maker_margin for s in range(n)),
    )


def match_winners(match: Match) -> tuple[int, ...]:
    """The seats whose players won a finished match.

    Every seat that reached the rules' target (level ``target_rank`` without
    ``joker_level``, or ``target_points`` game points); when the match
    stopped at its deal limit instead, the seats with the highest level,
    ties broken by game points won over the match.
    """
    r = match.rules
    levels = [lv.level for lv in match.levels]
    points = list(match.game_points_total)
    reached = tuple(s for s in range(r.players)
                    if (not r.joker_level and levels[s] >= r.target_rank)
                    or (r.target_points > 0 and points[s] >= r.target_points))
    if reached:
        return reached
    best = max(zip(levels, points))
    return tuple(s for s in range(r.players) if (levels[s], points[s]) == best)


# ------------------------------------------------------------------ the table


class _Seat:
    """One seat: its entrant's bot (in this process, or a sandboxed
    process) until a fault, then nothing (forfeit) or the fallback."""

    __slots__ = ("entrant", "bot", "remote", "item", "replaced", "broken", "seconds", "decisions", "rng",
                 "ref")

    def __init__(self, entrant: int, ref: BotRef, rng: random.Random) -> None:
        self.entrant = entrant
        self.ref = ref
        self.bot: Any = None         # a bot object in this process
        self.remote: Optional[RemoteSeat] = None
        self.item: Any = None        # the pool's handle of the remote process
        self.replaced = False        # the fallback plays this seat
        self.broken = False          # random legal actions play this seat
        self.seconds = 0.0
        self.decisions = 0
        self.rng = rng               # for random legal actions


#: The bot methods a job calls, in the order :data:`CALL_WATCH` numbers them.
CALL_METHODS = ("init", "restart", "step", "inform", "peek")

#: Set in a process that plays one job alone (:func:`watch_calls`): before
#: every in-process bot call the table writes the call's index in the job,
#: its seat and its method there, so that if the call ends the process, the
#: parent knows which bot did it and can replay the job with a ``died``
#: fault planned at that call.
CALL_WATCH: Any = None


def watch_calls(cells: Any) -> None:
    """Publish every bot call of the jobs played in this process to
    ``cells`` (three shared integers: call index, seat, method index)."""
    global CALL_WATCH
    CALL_WATCH = cells


class Table:
    """The seats of one job under ``settings`` and the bookkeeping of
    faults; ``planned`` maps the in-process bot calls that ended the
    process when the job was played before to their messages."""

    def __init__(self, job: Job, entrants: Sequence[Entrant], settings: TableSettings,
                 planned: Optional[dict[int, str]] = None) -> None:
        self.planned = planned or {}  # call index -> message: a call that ended the process before
        self.calls = 0               # in-process bot calls made so far in the job
        self.job = job
        self.settings = settings
        self.rules = settings.rules
        self.limits = settings.limits
        secret, cheating, trusted = settings.secret, settings.cheating, settings.trusted
        self.base = (job.seed, job.lineup, job.rotation)
        self.faults: list[Fault] = []
        self.forfeit: Optional[Fault] = None
        self.forfeits: list[int] = []   # per deal: the forfeiting seat, or -1
        self.forfeit_faults: list[Optional[tuple[Fault, int]]] = []   # per deal: (fault, the deal's first decision)
        self.deal_start = 0          # the job's decisions made before this deal
        self.decision = 0            # decisions made so far in the job
        self.deal = 0                # deals started so far
        self.seats: list[_Seat] = []
        self.logs: list[tuple[int, int, bytes]] = []    # (entrant, seat, stderr) to keep
        self.narrator: Optional[Narrator] = None     # the remote seats' news of the deal under way
        self._drawing = False        # the decision being made is in the draw,
        self._could = False          # and it could make trump
        for seat, e in enumerate(job.seats):
            ref = BotRef.parse(entrants[e].spec)
            spec = ref.text
            rng = random.Random(bot_seed(secret, *self.base, "random", seat))
            st = _Seat(e, ref, rng)
            self.seats.append(st)
            if ref.runs_here(trusted):
                bot, kind, message = self._make(seat, spec)
                st.bot = bot
                if kind is None and getattr(bot, "cheats", False) and not cheating:
                    raise ArenaError(f"bot {spec!r} sees every hand (it cheats); allow it explicitly")
                if kind is not None:
                    self._fault(seat, kind, message)
            else:
                self._start_remote(seat, st)

    # ---------------------------------------------------------------- seats
    def _start_remote(self, seat: int, st: _Seat) -> None:
        p = pool()
        try:
            st.item = p.acquire(st.ref, self.job.seed, self.limits)
        except StartFault as exc:
            self._fault(seat, exc.kind, f"starting: {exc}")
            return
        st.remote = RemoteSeat(st.item, self.limits)

    def _fallback_rng(self, seat: int) -> random.Random:
        return random.Random(bot_seed(self.settings.secret, *self.base, "fallback", self.deal, seat, self.decision))

    def _next_call(self, seat: int, what: str) -> Optional[str]:
        """Count an in-process bot call and publish it; the message of a
        ``died`` fault instead if this call ended the process when the job
        was played before."""
        index = self.calls
        self.calls += 1
        if index in self.planned:
            return self.planned[index]
        if CALL_WATCH is not None:
            CALL_WATCH[0], CALL_WATCH[1], CALL_WATCH[2] = index, seat, CALL_METHODS.index(what)
        return None

    def _make(self, seat: int, spec: str) -> tuple[Any, Optional[str], str]:
        """Build an in-process bot for ``seat``: (bot, fault kind, message); a bad spec raises."""
        died = self._next_call(seat, "init")
        if died is not None:
            return None, "died", died
        try:
            return make_bot(spec), None, ""
        except BotError:
            raise
        except (Exception, SystemExit) as exc:   # the bot's own constructor raised
            return None, "crash", _exc_line(exc)

    def _call(self, seat: int, what: str, fn: Callable[..., Any], *args: Any) -> CallOutcome:
        died = self._next_call(seat, what)
        if died is not None:
            return CallOutcome(None, "died", died, 0.0)
        out = guarded(what, fn, args, self.limits.move)
        self.seats[seat].seconds += out.seconds
        return out

    def _drop_remote(self, st: _Seat, kind: str, message: str) -> None:
        if st.remote is not None:
            st.remote.kill(kind, message)
            self._keep_log(st, self.seats.index(st))
            st.remote = None
            st.item = None

    def _fault(self, seat: int, kind: str, message: str) -> None:
        """Record a fault of the entrant's bot; forfeit, or seat the fallback."""
        st = self.seats[seat]
        if len(message) > _MESSAGE_CHARS:
            message = message[:_MESSAGE_CHARS - 3] + "..."
        fault = Fault(seat, st.entrant, kind, message, self.decision)
        self.faults.append(fault)
        self._drop_remote(st, kind, message)
        st.bot = None
        if self.settings.on_fault == "forfeit":
            st.broken = True
            if self.forfeit is None:
                self.forfeit = fault
            return
        st.replaced = True
        st.bot, made, _ = self._make(seat, self.settings.fallback)
        if made is not None:
            st.broken = True
            return
        out = self._call(seat, "restart", st.bot.restart, self.rules, seat, self._fallback_rng(seat))
        if out.kind is not None:
            st.broken = True

    def _failed(self, seat: int, kind: str, message: str) -> None:
        """A call of the seat's bot failed: a fault, or a broken fallback."""
        st = self.seats[seat]
        if st.replaced:
            st.broken = True
        else:
            self._fault(seat, kind, message)

    # ---------------------------------------------------------------- a deal
    def start(self, state: State) -> None:
        """Restart every seat's bot for a new deal; the narrator of the
        remote seats' messages is made (None when every bot is in this process)."""
        self.forfeit = None
        self.deal_start = self.decision
        self.chances = [0] * self.rules.players     # draw decisions with a way to make trump
        self.exposed = [False] * self.rules.players
        self.stalled = False
        narrator = Narrator(state) if any(st.remote is not None for st in self.seats) else None
        opening = narrator.opening() if narrator is not None else None
        for seat, st in enumerate(self.seats):
            seed = bot_seed(self.settings.secret, *self.base, self.deal, seat)
            if st.remote is not None:
                assert opening is not None         # a remote seat: there is a narrator
                st.remote.new_deal()
                st.remote.send(protocol.deal(self.rules, seat, seed, self.deal == 0, self.limits.overage,
                                             opening[seat]["view"]))
                continue
            if st.broken or st.bot is None:
                continue
            rng = self._fallback_rng(seat) if st.replaced else random.Random(seed)
            out = self._call(seat, "restart", st.bot.restart, self.rules, seat, rng)
            if out.kind is not None:
                self._failed(seat, out.kind, out.message)
        self.deal += 1
        self.narrator = narrator

    def _legal(self, state: State) -> tuple[list[str], bool]:
        """Up to :data:`protocol.MAX_LEGAL` legal actions, and whether that is all."""
        out: list[str] = []
        for text in state.legal_actions().texts():
            if len(out) == protocol.MAX_LEGAL:
                return out, False
            out.append(text)
        return out, True

    def choose(self, state: State, seat: int) -> Action:
        """The seat's answer, checked; after faults, the fallback's or a random legal one."""
        self._drawing = state.phase == DRAW         # what the draw's watch needs, from before the answer
        self._could = self._drawing and any(a.kind == EXPOSE for a in state.legal_actions())
        st = self.seats[seat]
        while not st.broken and self.forfeit is None:
            if st.remote is not None:
                legal, complete = self._legal(state) if st.remote.legal else (None, True)
                if st.remote.coalesce:
                    st.remote.catch_up(lambda: state.view(seat).to_json())
                text, kind, message, took = st.remote.decide(legal, complete)
                st.seconds += took
                if kind is not None:
                    self._failed(seat, kind, message)
                    continue
                assert text is not None            # decide gives a text whenever there is no fault
                action, why = parse_action(text)
                err = why if action is None else state.action_error(action)
                if err is not None:
                    self._failed(seat, "illegal", f"played {text[:80]}: {err}")
                    continue
                assert action is not None          # no action means an error, handled above
                return action
            bot = st.bot
            if getattr(bot, "cheats", False):
                out = self._call(seat, "peek", bot.peek, state)   # only an allowed cheating bot
                if out.kind is not None:
                    self._failed(seat, out.kind, out.message)
                    continue
            out = self._call(seat, "step", bot.step, state.view(seat))
            if out.kind is not None:
                self._failed(seat, out.kind, out.message)
                continue
            wrong = answer_error(state, out.value)
            if wrong is not None:
                self._failed(seat, "illegal", wrong)
                continue
            return fresh_action(out.value)
        if self.stalled and state.phase == DRAW:       # the deal must get a trump now
            exposing = [a for a in state.legal_actions() if a.kind == EXPOSE]
            if exposing:
                return exposing[0]
        return state.random_legal_action(st.rng)

    def _watch_draw(self, state: State, seat: int, action: Action, could: bool) -> None:
        """Count the chances to make trump each seat passed; when the deal
        has been redealt so often that one more would end it, the seats
        that passed every chance they had fault (``stall``)."""
        if could:
            self.chances[seat] += 1
        if action.kind == EXPOSE:
            self.exposed[seat] = True
        if state.redeals < MAX_REDEALS or self.stalled:     # one redeal more and the engine gives up
            return
        self.stalled = True
        for s in range(self.rules.players):
            if self.chances[s] and not self.exposed[s]:
                self._fault(s, "stall", f"passed all {self.chances[s]} chances to make trump while the deal "
                                        f"was dealt {state.redeals + 1} times without one")

    def play_deal(self, state: State) -> State:
        """Play ``state`` to its end (the one table loop, :func:`bots.table.play_table`)."""
        return play_table(state, self)

    def played(self, state: State, seat: int, action: Action) -> None:
        """Count the decision, watch the draw, and tell the seats that see it."""
        if self._drawing:
            self._watch_draw(state, seat, action, self._could)
        self.seats[seat].decisions += 1
        self.decision += 1
        if self.forfeit is not None:
            return                   # the deal is decided: no bot hears more of it
        if self.narrator is not None:
            remotes = [st.remote for st in self.seats]
            coalesced = [r is not None and r.coalesce for r in remotes]
            ch = self.narrator.changes(seat, action, [r is not None and not r.coalesce for r in remotes])
            lines = protocol.changes(ch, seat, coalesced)
            for other, remote in enumerate(remotes):
                if remote is not None:
                    if coalesced[other]:
                        remote.pending.note(ch, other)
                    remote.send(lines[other])
        for other, st in enumerate(self.seats):
            inform = None if st.broken or st.bot is None else getattr(st.bot, "inform", None)
            if inform is None or not sees(other, seat, action):
                continue
            out = self._call(other, "inform", inform, state.view(other), seat, action)
            if out.kind is not None:
                self._failed(other, out.kind, out.message)

    def end(self, state: State) -> None:
        """Note the deal's forfeit, and tell the remote seats the result."""
        self.forfeits.append(self.forfeit.seat if self.forfeit is not None else -1)
        self.forfeit_faults.append(None if self.forfeit is None else (self.forfeit, self.deal_start))
        res = state.result
        if self.narrator is not None and res is not None:
            result = {"maker": res.maker, "maker_side": sorted(res.maker_side),
                      "opponents_points": res.opponents_points, "game_points": state.returns(),
                      "winner": res.winner, "forfeit": self.forfeit.seat if self.forfeit else None}
            for st in self.seats:
                if st.remote is not None:
                    st.remote.send(protocol.end(result))

    # ---------------------------------------------------------------- the end
    def _keep_log(self, st: _Seat, seat: int) -> None:
        if st.remote is not None:
            data = st.remote.proc.take_stderr()
            if data:
                self.logs.append((st.entrant, seat, data))

    def finish(self) -> None:
        """Hand healthy processes back to the pool; keep what bots wrote to stderr."""
        p = pool()
        cap = 2 * self.rules.players + 2
        for seat, st in enumerate(self.seats):
            if st.remote is not None:
                self._keep_log(st, seat)
                p.release(st.item, st.ref.text, self.job.seed, cap)
                st.remote = None


def forfeit_outcome(out: DealOutcome, seat: int, rules: Rules) -> DealOutcome:
    """The outcome of a deal forfeited by the entrant in ``seat``: every seat
    of that entrant on the losing side, by the most a side can lose (no card
    points for it, the other side's largest win in game points), every
    other seat on the winning side. Whatever the cards, a fault never scores
    better than playing on would have.

    >>> from core.rules import Rules
    >>> played = DealOutcome(seats=(0, 1, 0, 1, 0), maker=1, maker_side=(1, 2), opponents_points=40,
    ...                      total_points=200, maker_won=True, game_points=(-1, 1, 1, -1, -1),
    ...                      margins=(-120.0, 120.0, 120.0, -120.0, -120.0))
    >>> f = forfeit_outcome(played, 2, Rules.preset("pagat", players=5))
    >>> f.maker_side, f.maker_won, f.margins
    ((0, 2, 4), False, (-200.0, 200.0, -200.0, 200.0, -200.0))
    """
    guilty = out.seats[seat]
    side = tuple(s for s in range(len(out.seats)) if out.seats[s] == guilty)
    total = out.total_points
    gp = max(abs(score_deal(rules, total, k).game_points) for k in range(1, rules.side_size + 1))
    return DealOutcome(
        seats=out.seats, maker=seat, maker_side=side, opponents_points=total, total_points=total,
        maker_won=False,
        game_points=tuple(-gp if s in side else gp for s in range(len(out.seats))),
        margins=tuple(-float(total) if s in side else float(total) for s in range(len(out.seats))),
        forfeit=seat)


def mark_forfeits(records: list[dict[str, Any]], faults: Sequence[Optional[tuple[Fault, int]]],
                  outcomes: Sequence[DealOutcome]) -> None:
    """Write each forfeited deal's fault and score into its header in
    ``records`` (a deal's or a match's, deals in play order): ``faults[k]``
    is the fault that forfeited deal ``k`` and the job's decisions before
    that deal (None: no forfeit), ``outcomes[k]`` its scored outcome. The
    ``forfeit`` field is the one :mod:`core.records` describes."""
    headers = [r for r in records if r.get("type") == "deal"]
    for header, found, out in zip(headers, faults, outcomes):
        if found is None:
            continue
        fault, start = found
        header["forfeit"] = {"seat": fault.seat, "kind": fault.kind, "message": fault.message,
                             "decision": max(0, fault.decision - start),
                             "game_points": list(out.game_points), "margins": list(out.margins)}


# ------------------------------------------------------------------ jobs
def _check(job: Job, entrants: Sequence[Entrant], settings: TableSettings) -> None:
    settings.check()
    if len(job.seats) != settings.rules.players:
        raise ArenaError(f"job {job.key}: {len(job.seats)} seats for {settings.rules.players} players")
    bad = [e for e in job.seats if not 0 <= e < len(entrants)]
    if bad:
        raise ArenaError(f"job {job.key}: entrant {bad[0]} is not one of the {len(entrants)} entrants")


def play_job(job: Job, entrants: Sequence[Entrant], settings: TableSettings,
             died: Optional[dict[int, str]] = None) -> JobResult:
    """Play one job under ``settings`` and return its result.

    ``settings.mode``: ``"deals"`` plays the deal ``State(rules,
    seed=deal_seed(secret, job.seed))``; ``"matches"`` the whole match from
    that seed (one outcome per deal, and ``match_winners``). The settings'
    limits time every decision (a ``timeout`` past them), its ``trusted``
    says which bots run in this process, its ``on_fault`` what a fault
    costs, and its ``secret`` keys every bot's random seed
    (:func:`arena.table.remote.bot_seed`) and the shuffle
    (:func:`arena.table.remote.deal_seed`). ``record``: keep the JSON-lines
    record of the deal or match (replayable with ``pengyou replay``).

    A fault's ``decision`` is the index, counted from 0 over the whole job,
    of the decision at which the bot failed. ``seconds[s]`` is the time seat
    ``s``'s bots spent deciding; ``decisions[s]`` how many decisions the
    seat made (whoever made them).

    ``died`` maps in-process bot-call indexes (as published by
    :func:`watch_calls`) to messages: calls that ended the process when
    the job was played before; replaying the job, such a call is a ``died``
    fault instead.

    Raises :class:`~arena.types.ArenaError` for bad settings or line-up,
    and :class:`bots.BotError` for an unusable bot spec.
    """
    _check(job, entrants, settings)
    if settings.on_fault == "fallback":
        make_bot(settings.fallback)     # a bad fallback spec fails here, not at the first fault
    rules, secret, mode, record = settings.rules, settings.secret, settings.mode, settings.record
    table = Table(job, entrants, settings, died)
    winners: tuple[int, ...] = ()
    try:
        if mode == "deals":
            state = table.play_deal(State(rules, seed=deal_seed(secret, job.seed)))
            outs = [outcome_of(state, job.seats)]
            records = deal_record(state) if record else []
        else:
            match = Match(rules, seed=deal_seed(secret, job.seed))
            outs = []
            while not match.is_over():
                state = table.play_deal(match.new_deal())
                match.finish_deal(state)
                outs.append(outcome_of(state, job.seats))
            winners = match_winners(match)
            records = match_record(match) if record else []
    finally:
        table.finish()
    outcomes = tuple(o if f < 0 else forfeit_outcome(o, f, rules) for o, f in zip(outs, table.forfeits))
    text = ""
    if record:
        if records:                       # who held each seat, for whoever replays it
            records[0]["players"] = [entrants[e].name for e in job.seats]
        mark_forfeits(records, table.forfeit_faults, outcomes)   # and which deals a fault forfeited
        buf = io.StringIO()
        write_records(records, buf)
        text = buf.getvalue()
    return JobResult(
        key=job.key, group=job.group, seats=tuple(job.seats), deals=outcomes,
        faults=tuple(table.faults), seconds=tuple(st.seconds for st in table.seats),
        decisions=tuple(st.decisions for st in table.seats), match_winners=winners, record=text,
        logs=tuple(table.logs),
    )
