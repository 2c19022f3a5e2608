"""The RNG report for a test lab (``slotforge rng report``, written to ``docs/rng.md``).

Four kinds of evidence: the live generator's raw output through dieharder (an outside battery,
Debian's ``dieharder`` package: this module installs nothing and says what to install), chi-square
tests of every mapped draw of every game (:mod:`slotforge.maths.draws`), an exhaustive check of
the bounded-integer mapping on small words (the argument that it has no bias does not depend on
the word size), and how the generators are seeded and re-seeded.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
from scipy.stats import kstest

from slotforge import __version__
from slotforge.engine import rng
from slotforge.games import game_codes, load_game
from slotforge.maths.draws import ChiSquare, check_draws, game_draws

# dieharder's tests run on the live output: those that take seconds to a minute each (the whole
# battery, ``dieharder -a``, takes hours on the output of a Python pipe).
DIEHARDER_TESTS = (0, 1, 3, 4, 8, 15, 100, 101, 102, 203, 205, 206, 209)
DEFAULT_SET = (
    ", those that run in seconds to a minute on a Python pipe (`dieharder -a`, the whole battery, takes hours)"
)
FAMILY_ALPHA = 0.01  # the report's significance level for all chi-square tests together (Bonferroni)
REPORT_SEED = 20261203
PER_OUTCOME = 200  # expected draws of each draw's rarest outcome
INSTALL = "install Debian's package: apt-get install dieharder"


class MissingTool(ValueError):
    """A program the report needs is not installed (the message says how to install it)."""


@dataclass(frozen=True)
class DieharderResult:
    test: str
    ntup: int
    tsamples: int
    psamples: int
    p_value: float
    assessment: str


def dieharder_path() -> str:
    """The dieharder program, or a :class:`MissingTool` naming the package to install."""
    path = shutil.which("dieharder")
    if path is None:
        raise MissingTool(f"dieharder: not found on PATH; the RNG report runs the live generator through it: {INSTALL}")
    return path


def run_dieharder(tests: tuple[int, ...] = DIEHARDER_TESTS) -> tuple[list[DieharderResult], int]:
    """Feed the live generator's words (:func:`rng.secure_words`, as a round draws them) to
    dieharder's tests; the results and the words fed."""
    program = dieharder_path()
    results: list[DieharderResult] = []
    fed = 0
    for test in tests:
        output, words = _feed(program, test)
        fed += words
        results += parse_dieharder(output)
    return results, fed


def _feed(program: str, test: int) -> tuple[str, int]:
    """One dieharder test reading raw words on standard input (``-g 200``); ambiguous (weak)
    results are re-run with more samples (``-Y 1``), as dieharder advises."""
    process = subprocess.Popen(
        [program, "-g", "200", "-d", str(test), "-Y", "1"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    fed = [0]

    def write() -> None:
        try:
            while True:
                process.stdin.write(rng.secure_words(1 << 17).tobytes())
                fed[0] += 1 << 17
        except (BrokenPipeError, ValueError, OSError):
            return

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    output = process.stdout.read().decode(errors="replace")
    process.wait()
    try:
        process.stdin.close()
    except OSError:
        pass
    writer.join(timeout=5)
    return output, fed[0]


LINE = re.compile(r"^\s*(\S+)\|\s*(\d+)\|\s*(\d+)\|\s*(\d+)\|\s*([0-9.eE+-]+)\|\s*(\w+)\s*$")


def parse_dieharder(output: str) -> list[DieharderResult]:
    """dieharder's result lines (``name| ntup| tsamples| psamples| p-value| assessment``), one per
    test: where ``-Y 1`` re-ran a weak result with more samples, the last line, its outcome."""
    found: dict[tuple[str, int], DieharderResult] = {}
    for line in output.splitlines():
        match = LINE.match(line)
        if match:
            name, ntup, tsamples, psamples, p_value, assessment = match.groups()
            found[name, int(ntup)] = DieharderResult(name, int(ntup), int(tsamples), int(psamples), float(p_value),
                                                     assessment)
    return list(found.values())


def parse_tests(text: str) -> tuple[int, ...]:
    """``--dieharder-tests 0,100,209`` as test numbers."""
    parts = [part.strip() for part in text.split(",")]
    if not all(part.isdigit() for part in parts):
        raise ValueError(
            f"--dieharder-tests: expected test numbers separated by commas (dieharder -l lists them), got {text!r}"
        )
    return tuple(int(part) for part in parts)


def shipped_report_path() -> Path:
    """docs/rng.md of the source checkout."""
    folder = Path(__file__).resolve().parents[3] / "docs"
    if not folder.is_dir():
        raise ValueError(f"--out: {folder} not found; give --out FILE outside a source checkout of slotforge")
    return folder / "rng.md"


def lemire_is_exact(bits: int) -> bool:
    """The bounded-integer mapping of :func:`rng.bounded`, on ``bits``-bit words instead of 32:
    for every range ``n`` below ``2**bits``, every outcome is reached by exactly
    ``floor(2**bits / n)`` of the accepted words, i.e. all outcomes equally likely."""
    size = 1 << bits
    words = np.arange(size, dtype=np.int64)
    for n in range(1, size):
        product = words * n
        low = product & (size - 1)
        threshold = (size - n) % n
        outcomes = np.bincount(product[low >= threshold] >> bits, minlength=n)
        if outcomes.min() != outcomes.max() or outcomes[0] != size // n:
            return False
    return True


def all_draw_tests(seed: int = REPORT_SEED) -> dict[str, list[ChiSquare]]:
    """Chi-square tests of every mapped draw of every game (draws seeded per game and draw)."""
    return {
        code: check_draws(game_draws(load_game(code)), [seed, n], PER_OUTCOME) for n, code in enumerate(game_codes())
    }


def report(
    dieharder: tuple[list[DieharderResult], int] | None = None,
    seed: int = REPORT_SEED,
    tests: tuple[int, ...] = DIEHARDER_TESTS,
) -> str:
    """docs/rng.md: the RNG report, as Markdown."""
    chi = all_draw_tests(seed)
    every = [t for by_game in chi.values() for t in by_game]
    alpha = FAMILY_ALPHA / len(every)
    failed = [t for t in every if t.p_value < alpha]
    uniformity = kstest([t.p_value for t in every], "uniform")
    lines = [
        "# The random number generator: evidence for a test lab",
        "",
        f"Written by `slotforge rng report` (slotforge {__version__}, {datetime.now(UTC):%Y-%m-%d %H:%M} UTC). "
        "Regenerate it with the same command; the dieharder figures change from run to run (they test the "
        "live, unseeded generator), the chi-square figures only when a model or the mapping does.",
        "",
        *GENERATORS,
        *SEEDING,
        *MAPPING,
        f"Checked exhaustively by this report, the same steps on smaller words: {_exact_line(8)}; {_exact_line(12)}.",
        "",
        *dieharder_section(dieharder, tests),
        "## Every mapped draw of every game: chi-square tests",
        "",
        "A round turns words into outcomes through two kernels only, `bounded` (uniform) and `weighted` "
        "(in proportion to a table's weights). The draws are found in each game's model file, not listed by "
        "hand: each reel strip's stop, each table of weights (cell weights, feature weights, chances) and the "
        "engine's own draws a game uses (the gamble's card or pick, a cell among the free ones); see "
        "`slotforge.maths.draws`. Each is sampled through the round's own compiled kernels from a simulation "
        f"stream (seed {seed}; enough draws for {PER_OUTCOME} expected in its rarest outcome, 10,000 at "
        "least) and its counts are tested against the design with Pearson's chi-square (scipy).",
        "",
        f"**{len(every)} tests; at a family-wise significance level of {FAMILY_ALPHA} (Bonferroni: each test "
        f"at {alpha:.2e}) {len(failed)} reject{'s' if len(failed) == 1 else ''} the design.** Smallest p-value "
        f"{min(t.p_value for t in every):.4f}; the p-values should be uniform on (0, 1) when every draw follows "
        f"its design, and a Kolmogorov-Smirnov test of them against the uniform gives p = {uniformity.pvalue:.3f}.",
        "",
    ]
    for code, by_game in chi.items():
        lines += [
            f"### {load_game(code).spec.name} (`{code}`, model `{load_game(code).model_id}`)",
            "",
            "| draw | kind | outcomes | draws | chi-square | dof | p-value |",
            "|---|---|---|---|---|---|---|",
        ]
        lines += [
            f"| {t.draw.where} | {t.draw.kind} | {t.draw.outcomes} | {t.samples:,} | {t.statistic:.2f} | "
            f"{t.dof} | {t.p_value:.4f} |"
            for t in by_game
        ]
        lines.append("")
    return "\n".join(lines)


def _exact_line(bits: int) -> str:
    verdict = "every outcome equally likely" if lemire_is_exact(bits) else "NOT UNIFORM"
    return f"on {bits}-bit words, for every range n from 1 to {(1 << bits) - 1}, {verdict}"


def dieharder_section(dieharder: tuple[list[DieharderResult], int] | None, tests: tuple[int, ...]) -> list[str]:
    lines = ["## The live generator's raw output through dieharder", ""]
    if dieharder is None:
        return lines + ["Not run in this report (`--no-dieharder`).", ""]
    results, words = dieharder
    counts = {a: sum(r.assessment == a for r in results) for a in ("PASSED", "WEAK", "FAILED")}
    return lines + [
        f"{words * 8 / 1e9:,.1f} GB of words from `slotforge.engine.rng.secure_words` (exactly what a live round "
        f"draws), fed to dieharder 3 on standard input (`dieharder -g 200 -d TEST -Y 1`: ambiguous results are "
        f"re-run with more samples). Tests: {', '.join(str(t) for t in tests)}"
        f"{DEFAULT_SET if tests == DIEHARDER_TESTS else ''}. "
        f"**{counts['PASSED']} passed, {counts['WEAK']} weak, {counts['FAILED']} failed.** A weak result now and "
        "then is expected of a good generator (it is a p-value below 0.005 or above 0.995).",
        "",
        "| test | ntup | tsamples | psamples | p-value | assessment |",
        "|---|---|---|---|---|---|",
        *[
            f"| {r.test} | {r.ntup} | {r.tsamples:,} | {r.psamples} | {r.p_value:.8f} | {r.assessment} |"
            for r in results
        ],
        "",
    ]


GENERATORS = [
    "## The generators",
    "",
    "- **Live play** (the game server, `slotforge play` without `--seed`): every random word comes from the "
    "operating system's cryptographically secure generator (`secrets.token_bytes`, on Linux the kernel's "
    "`getrandom(2)` ChaCha20 generator), 64 words at a time (`slotforge.engine.rng.secure_words`). A round that "
    "needs more is played again from the start with twice as many words, so that every word a recorded round "
    "used comes from that source; the record keeps them, and `slotforge replay` plays the round again from them.",
    "- **Simulation and maths** (`slotforge simulate`, the RTP reports, PAR sheets, `play --seed`): "
    "xoshiro256** (Blackman and Vigna), period 2^256 - 1, 64-bit words.",
    "",
]

SEEDING = [
    "## Seeding and re-seeding",
    "",
    "- **Live**: slotforge keeps no generator state of its own, so there is nothing to seed, re-seed or "
    "duplicate when server processes fork. The kernel seeds its generator from hardware entropy at boot and "
    "re-seeds it from its entropy pool while running (every minute on current Linux kernels, and whenever the "
    "pool is mixed with new input); `getrandom(2)` blocks until the generator is first seeded.",
    "- The stream a live round reads from holds those words only. When they run out it raises a flag and "
    "answers from a fallback generator so that no loop can spin on a dead source; the round is then "
    "discarded and played again with more secure words, so a fallback word never decides a round.",
    "- **Simulation**: chunk *i* of a run with seed *s* is seeded with numpy's `SeedSequence((s, i))`, "
    "which hashes the pair into the four 64-bit words of xoshiro256**'s state (never all zero). Streams of "
    "different chunks or seeds are independent for all practical purposes, and a run's figures depend only on "
    "its seed and round count, not on how many processes or machines shared the chunks. Nothing re-seeds "
    "during a chunk: a chunk of 2^20 rounds uses a tiny part of the period.",
    "",
]

MAPPING = [
    "## From a word to an outcome, without bias",
    "",
    "`bounded(stream, n)` (in `slotforge.engine.rng`) returns a uniform integer in [0, n) for 1 <= n < 2^32 by "
    "Lemire's multiply-and-reject method (D. Lemire, *Fast Random Integer Generation in an Interval*, ACM "
    "TOMACS 2019). Take the upper 32 bits of a word, x, uniform on [0, 2^32); form m = x * n (64 bits); the "
    "outcome is m >> 32 and the low part is l = m mod 2^32. The draw is rejected and repeated while "
    "l < t, where t = 2^32 mod n (computed as (2^32 - n) mod n).",
    "",
    "Why every outcome is equally likely: for an outcome r, the accepted x are those with "
    "r * 2^32 + t <= x * n < (r + 1) * 2^32. As x runs over consecutive integers, x * n runs over an "
    "arithmetic progression of step n, so that interval, of length 2^32 - t = n * floor(2^32 / n), holds "
    "exactly floor(2^32 / n) of its values, whatever r and whatever its offset: every outcome has exactly "
    "floor(2^32 / n) of the 2^32 values of x. A rejection happens with probability t / 2^32 < n / 2^32, and "
    "the test against t is only made when l < n (rare), so an unbiased draw costs one multiplication. "
    "Modulo reduction (x mod n), which favours small outcomes whenever n does not divide 2^32, is not used "
    "anywhere.",
    "",
    "`weighted(stream, cumulative)` draws pick = bounded(total) and returns the first index i with "
    "pick < cumulative[i]: exactly w_i of the total values of pick map to index i, so its probability is "
    "w_i / total, exactly (weights are whole numbers with a total below 2^32; the models are validated for it).",
    "",
]
