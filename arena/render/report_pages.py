"""The report's page kit, and the parts of the pages of a test and of a tuning run.

A report (:mod:`arena.report`) is one page of sections, each one heading and
its content, rendered through the page kit (:mod:`arena.render.html`) from
``report.html.j2`` and the macros of ``report_parts.html.j2``:
:func:`report_page` and :func:`report_part`. Plots are drawn by matplotlib
and put inline as SVG (:func:`svg_of`), so a page needs no network.

An SPRT's page leads with the answer (:func:`sprt_summary`): the verdict in
words (:func:`verdict_words`), the hypotheses, the LLR with its bounds, the
deal groups played of the most the test may play, and the LLR's path; then
the test's Elo and card margin with their intervals (:func:`sprt_estimates`).
A tuning run's page (:func:`tune_sections`) leads with its final test's
verdict, then the tuned bot ready to copy, the SPSA schedule, each parameter
in its own type, and the trajectory.

Everything here is built from values (a test's stored state, a tuning run's
spec and SPSA state): loading them is :mod:`arena.report`'s.
"""

from __future__ import annotations

import io
import math
import shlex
from collections.abc import Mapping, Sequence
from typing import Any, Optional

from markupsafe import Markup

from ..stats.spsa import ALPHA, GAMMA
from .html import KIT
from .numbers import signed

__all__ = ["report_part", "report_page", "svg_of", "pyplot", "llr_plot", "verdict_words", "sprt_summary",
           "sprt_estimates", "param_text", "tune_sections", "GAMES_PAGE"]

#: Rows of a games table shown at once (the page's script pages the rest).
GAMES_PAGE = 50


def report_part(name: str, **context: Any) -> Markup:
    """One section's content, rendered by the macro ``name`` of ``report_parts.html.j2``."""
    return Markup(KIT.macro("report_parts.html.j2", name)(**context))     # built by an autoescaping macro


def report_page(title: str, subtitle: str, sections: Sequence[tuple[str, str, Markup]]) -> str:
    """The whole page: a header, then each section (id, heading, content built by the kit)."""
    return KIT.render("report.html.j2", title=title, subtitle=subtitle, sections=sections)


def pyplot() -> Any:
    """matplotlib's pyplot, drawing off screen."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def svg_of(fig: Any) -> str:
    """A matplotlib figure as inline SVG (the figure is closed)."""
    plt = pyplot()
    buf = io.StringIO()
    fig.savefig(buf, format="svg", bbox_inches="tight")
    plt.close(fig)
    text = buf.getvalue()
    return text[text.index("<svg"):]


def llr_plot(state: Mapping[str, Any], path: Sequence[Mapping[str, Any]]) -> str:
    """A test's LLR against the deal groups played, with the bounds that accept H0 and H1 (SVG)."""
    plt = pyplot()
    lo, hi = state["bounds"]
    fig, ax = plt.subplots(figsize=(7, 3.2))
    ax.plot([p["groups"] for p in path], [p["llr"] for p in path], marker=".", lw=1.2)
    ax.axhline(lo, color="#c0262d", ls="--", lw=1, label=f"accept H0 ({lo:.2f})")
    ax.axhline(hi, color="#2d7d46", ls="--", lw=1, label=f"accept H1 ({hi:.2f})")
    ax.xaxis.get_major_locator().set_params(integer=True)        # groups are whole
    ax.set_xlabel("deal groups")
    ax.set_ylabel("log-likelihood ratio")
    ax.legend(loc="best", fontsize=8)
    return svg_of(fig)


def _hypotheses(state: Mapping[str, Any]) -> dict[str, float]:
    """A stored state's hypotheses (kept as ``Hypotheses.to_json()``: low and high Elo)."""
    h = state.get("hypotheses") or {}
    return {"elo0": float(h.get("low", math.nan)), "elo1": float(h.get("high", math.nan)),
            "alpha": float(h.get("alpha", math.nan)), "beta": float(h.get("beta", math.nan))}


def verdict_words(state: Mapping[str, Any], a: str, b: str) -> tuple[str, str]:
    """A test's verdict as a headline and what it means in Elo, for ``a``
    (the bot tested as the better) against ``b``.

    >>> st = {"verdict": "H0", "hypotheses": {"low": 0.0, "high": 10.0}, "groups": 40, "max_groups": 100}
    >>> verdict_words(st, "tuned", "start")
    ('H0 accepted', 'tuned is not 10 Elo better than start: the evidence favours H0 (at most 0 Elo) over H1 (at least +10 Elo).')
    """
    h = _hypotheses(state)
    e0, e1 = elo_bound(h["elo0"]), f"{h['elo1']:g}"
    said = state.get("verdict")
    if said == "H0":
        return "H0 accepted", (f"{a} is not {e1} Elo better than {b}: the evidence favours H0 (at most {e0} Elo) "
                               f"over H1 (at least +{e1} Elo).")
    if said == "H1":
        return "H1 accepted", (f"{a} is better than {b}: the evidence favours H1 (at least +{e1} Elo) over H0 "
                               f"(at most {e0} Elo).")
    if said == "limit":
        return "no verdict", (f"the test stopped at its limit of {state.get('max_groups')} deal groups with the "
                              f"LLR between its bounds: neither {a} at most {e0} Elo better than {b} (H0) nor "
                              f"at least +{e1} Elo (H1) was shown.")
    return "still running", (f"no verdict yet after {state.get('groups')} of {state.get('max_groups')} deal groups: "
                             f"the LLR is between its bounds; the same pengyou sprt command goes on.")


def _signed(x: Any, digits: int) -> str:
    if not isinstance(x, (int, float)) or not math.isfinite(x):
        return "\u2013"
    return signed(x, digits)


def elo_bound(x: float) -> str:
    """A hypothesis's Elo as the page says it: signed, but 0 as ``0``.

    >>> elo_bound(0.0), elo_bound(10.0), elo_bound(-5.0)
    ('0', '+10', '-5')
    """
    return "0" if x == 0 else f"{x:+g}"


def _estimate(e: Optional[Mapping[str, Any]], digits: int) -> str:
    if not e:
        return "\u2013 (fewer than 2 groups)"
    return f"{_signed(e.get('mean'), digits)} [{_signed(e.get('lo'), digits)}, {_signed(e.get('hi'), digits)}]"


def sprt_summary(k: int, state: Mapping[str, Any], path: Sequence[Mapping[str, Any]], a: str, b: str,
                 run_deals: int = 0) -> Markup:
    """The ``k``-th test of a run as its page's first section: the verdict,
    the hypotheses, the LLR with its bounds, the groups played of the most,
    and the LLR's path. ``run_deals``: the deals the run holds in all, when
    the test counted fewer (it decides at the first group whose LLR crosses
    a bound; the games after it are in the standings, not in the test)."""
    head, meaning = verdict_words(state, a, b)
    h = _hypotheses(state)
    lo, hi = state["bounds"]
    groups, most = int(state["groups"]), int(state.get("max_groups") or 0)
    per = state["deals"] // groups if groups else 0
    return report_part("sprt_summary", k=k, verdict=state.get("verdict") or "running", head=head,
                       meaning=meaning, a=a, b=b, hyp=h, llr=float(state["llr"]), lo=float(lo), hi=float(hi),
                       groups=groups, most=most, deals=int(state["deals"]),
                       beyond=max(0, run_deals - int(state["deals"])) if state.get("verdict") else 0,
                       most_deals=most * per if per else None, elo=_estimate(state.get("elo"), 1),
                       plot=Markup(llr_plot(state, path)), e0=elo_bound(h["elo0"]), e1=elo_bound(h["elo1"]))


def sprt_estimates(states: Sequence[Mapping[str, Any]], a: str, b: str) -> Markup:
    """Each test's own estimates of ``a`` against ``b``: the Elo of the seat
    duels and the card margin a deal, each with its 95 % interval."""
    rows = [{"k": k, "elo": _estimate(st.get("elo"), 1), "margin": _estimate(st.get("margin"), 2),
             "groups": st.get("groups")} for k, st in enumerate(states)]
    return report_part("sprt_estimates", rows=rows, a=a, b=b)


# ------------------------------------------------------------------ tuning runs
def param_text(value: float, integer: bool) -> str:
    """A parameter's value as the bot takes it: an integer parameter as a
    whole number, a real one with six significant digits.

    >>> param_text(5.3599, True), param_text(0.123456789, False), param_text(2.0, False)
    ('5', '0.123457', '2')
    """
    return str(int(round(value))) if integer else f"{value:.6g}"


def _command(words: Sequence[str]) -> str:
    return " ".join(shlex.quote(w) for w in words)


def tune_sections(spec: Any, spsa: Any, trajectory: Sequence[Sequence[float]],
                  final: Optional[Mapping[str, Any]], final_note: tuple[str, str], plot: str
                  ) -> list[tuple[str, str, Markup]]:
    """A tuning run's sections: its final test (``final``: the stored state
    and LLR path of the test of the tuned values against the start, with
    ``final_note[1]`` saying where its own page is; or None, ``final_note``
    then saying why there is none: a headline and its reason), the tuned bot ready to copy with the
    command that plays it, the SPSA schedule, the parameters in their types,
    and the trajectory (``plot``, SVG). ``spec``: the run's
    :class:`arena.tournament.tune.TuneSpec`; ``spsa``: its
    :class:`arena.stats.spsa.Spsa` state."""
    params = list(spec.params)
    last = list(trajectory[-1]) if trajectory else [p.start for p in params]
    tuned = [int(round(v)) if p.integer else v for p, v in zip(params, last)]
    start = [int(round(p.start)) if p.integer else p.start for p in params]
    tuned_spec, start_spec = spec.spec_at(tuned), spec.spec_at(start)
    if final is not None:
        head, meaning = verdict_words(final["state"], "tuned", "start")
        top = sprt_summary(0, final["state"], final["path"], "tuned", "start")
        verdict = report_part("final_test", head=head, meaning=meaning, note=final_note[1], summary=top)
    else:
        verdict = report_part("final_test", head=final_note[0], meaning=final_note[1], note="", summary=None)
    rules = ["--preset", spec.preset, "--players", str(spec.players)]
    for key, value in spec.settings:
        rules += ["--set", f"{key}={value}"]
    play = _command(["pengyou", "duel", f"tuned={tuned_spec}", f"start={start_spec}", *rules])
    copy = report_part("tuned_bot", spec=tuned_spec, play=play, same=tuned_spec == start_spec,
                       iterations=len(trajectory))
    n = spsa.iterations
    schedule_rows = [{"name": p.name, "c_end": f"{p.c_end:.6g}", "r_end": f"{p.r_end:.6g}",
                      "c": f"{spsa.c_k(p, 1):.6g}", "a": f"{spsa.a_k(p, 1) * (spsa.big_a + 1) ** ALPHA:.6g}",
                      "step1": f"{spsa.a_k(p, 1) / spsa.c_k(p, 1):.6g}", "step_end": f"{spsa.a_k(p, n) / spsa.c_k(p, n):.6g}"}
                     for p in params]
    schedule = report_part("schedule_table", rows=schedule_rows, iterations=n, big_a=f"{spsa.big_a:g}",
                           alpha=f"{ALPHA:g}", gamma=f"{GAMMA:g}", batch=spec.batch, seed=spec.seed,
                           against=spec.against)
    rows = [{"name": p.name, "type": "integer" if p.integer else "real",
             "start": param_text(p.start, p.integer), "low": param_text(p.low, p.integer),
             "high": param_text(p.high, p.integer), "now": param_text(v, p.integer)}
            for p, v in zip(params, last)]
    table = report_part("params_table", rows=rows, iterations=len(trajectory))
    return [("final-test", "Final test: tuned against start", verdict),
            ("tuned", "Tuned bot", copy),
            ("schedule", "Schedule", schedule),
            ("parameters", "Parameters", table),
            ("trajectory", "Trajectory", Markup(plot))]
