"""The command line as a user meets it: machine-readable output, clean interruption, and one
line naming the field or file for every kind of bad input (exit code 2)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import typer
from processes import wait_until_rounds_are_done
from typer.testing import CliRunner

from slotforge import __version__
from slotforge.cli import app

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[1]
DYNASTY_MODEL = ROOT / "src/slotforge/games/dynasty/model.json"
GAMBLING_SEED = "2"  # `play dynasty --seed 2` wins 0.60 on its first spin and offers the gamble


def invoke(*args: str, input: str | None = None):
    return runner.invoke(app, list(args), input=input)


def assert_bad_input(result, *fragments: str) -> None:
    """Exit code 2 and one line on standard error holding every fragment."""
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: ")
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


def played_record(tmp_path: Path, *args: str, input: str = "") -> dict:
    path = tmp_path / "record.json"
    result = invoke("play", "dynasty", *args, "--save", str(path), input=input)
    assert result.exit_code == 0, result.output
    return json.loads(path.read_text())


def write_record(tmp_path: Path, record: dict) -> str:
    path = tmp_path / "tampered.json"
    path.write_text(json.dumps(record))
    return str(path)


# -- machine-readable output -----------------------------------------------------------------
def test_rtp_json_has_method_parts_and_the_bet():
    result = invoke("rtp", "dynasty", "--bet", "lines=7", "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["method"] == "exact" and abs(report["rtp"] - 0.95) < 0.0001
    assert set(report["parts"]) == {"base_lines", "base_scatter", "free_spins"}
    assert report["bet"]["lines"] == 7


def test_simulate_json_fields():
    result = invoke("simulate", "dynasty", "--rounds", "300000", "--seed", "4", "--json")
    assert result.exit_code == 0
    report = json.loads(result.stdout)
    for key in ("rtp", "ci95", "ci99", "rounds", "rounds_per_second", "std", "hit_frequency", "max_win", "features",
                "seed", "compile_seconds"):
        assert key in report
    assert report["rounds"] == 300_000 and 0 < report["ci95"] < report["ci99"] and report["seed"] == 4


def test_rtp_of_one_strategy_or_of_each():
    result = invoke("rtp", "wish-upon-a-jackpot", "--strategy", "worst", "--json")
    assert result.exit_code == 0, result.output
    worst = json.loads(result.stdout)
    assert worst["strategy"] == "worst" and worst["method"].startswith("exact")
    assert abs(worst["rtp"] - 0.9246) < 0.0005
    report = json.loads(invoke("rtp", "wish-upon-a-jackpot", "--json").stdout)
    assert report["strategy"] == "best" and set(report["strategies"]) == {"best", "worst", "first", "last"}
    assert report["strategies"]["worst"]["rtp"] == worst["rtp"]
    assert {"deal_maker", "beanstalk", "three_little_pigs", "rapunzel"} <= set(report["parts"])


def test_rtp_wish_upon_a_jackpot_gives_the_published_ends_exactly():
    # "from 92.46 to 95.26%": the best and the worst strategy, exact to the printed digits and two
    # beyond them.
    for strategy, published in (("best", "95.2600%"), ("worst", "92.4600%")):
        result = invoke("rtp", "wish-upon-a-jackpot", "--strategy", strategy)
        assert result.exit_code == 0, result.output
        assert result.stdout.splitlines()[1].startswith(f"RTP {published}"), result.stdout


@pytest.mark.parametrize("game", ["dynasty", "moon-of-fortune", "wish-upon-a-jackpot"])
def test_rtp_honours_every_strategy_of_a_game_whose_report_takes_one(game):
    from slotforge.games import load_game

    for strategy in load_game(game).strategies:
        result = invoke("rtp", game, "--strategy", strategy, "-n", "100000", "--json")
        assert result.exit_code == 0, result.output
        assert json.loads(result.stdout)["strategy"] == strategy


def test_moons_report_plays_the_gamble_strategy_and_gives_the_caps_interval():
    sun = json.loads(invoke("rtp", "moon-of-fortune", "--strategy", "always_sun", "-n", "200000", "--json").stdout)
    collect = json.loads(invoke("rtp", "moon-of-fortune", "-n", "200000", "--json").stdout)
    assert sun["strategy"] == "always_sun" and collect["strategy"] == "collect"
    # The gamble is fair: the session that gambles is a different session (its spread differs).
    assert sun["simulated_std"] != collect["simulated_std"]
    # The cap's effect is simulated: its 99% interval is given, and it is the report's interval.
    assert sun["max_win_cap_ci99"] >= 0 and sun["ci99"] == sun["max_win_cap_ci99"]
    assert "ci99" in sun["method"]


def test_rtp_seconds_says_its_budget_covers_the_simulated_part_only():
    result = invoke("rtp", "moon-of-fortune", "--seconds", "0.1")
    assert result.exit_code == 0, result.output
    assert "budgets the simulated part only" in result.stderr
    assert "simulated part only" in re.sub(r"[\s│]+", " ", invoke("rtp", "--help").stdout)


def test_games_shows_the_published_range_with_the_strategy_of_each_end():
    result = invoke("games")
    assert result.exit_code == 0, result.output
    wish = [line for line in result.stdout.splitlines() if line.startswith("wish-upon-a-jackpot")][0]
    assert "RTP 92.46% to 95.26%" in wish
    detail = result.stdout.splitlines()[result.stdout.splitlines().index(wish) + 1]
    assert "92.46% with strategy worst" in detail and "95.26% with best" in detail


def test_play_save_of_a_waiting_round_does_not_ask_for_save_again(tmp_path):
    path = tmp_path / "record.json"
    result = invoke("play", "dynasty", "--seed", GAMBLING_SEED, "--save", str(path))
    assert result.exit_code == 0, result.output
    assert "or --save the record" not in result.stderr
    assert str(path) in result.stderr and "slotforge resume" in result.stderr


def test_the_servers_database_files_are_ignored_by_git():
    for name in ("slotforge.db", "slotforge.db-wal", "slotforge.db-shm"):
        assert subprocess.run(["git", "check-ignore", "-q", name], cwd=ROOT).returncode == 0, name


def test_simulate_plays_the_named_strategy():
    result = invoke("simulate", "wish-upon-a-jackpot", "-n", "200000", "--strategy", "first", "-w", "1", "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["strategy"] == "first"
    # "first" takes the first offer: every Deal Maker is paid at offer 1.
    assert report["features"]["deal_maker"]["taken_at_offer"]["1"] == 1.0


def test_version():
    result = invoke("--version")
    assert result.exit_code == 0 and result.stdout.strip() == f"slotforge {__version__}"


def command_paths(command, path=()):
    """Every command and group of the ``slotforge`` command, as the words that name it."""
    yield path
    for name, sub in getattr(command, "commands", {}).items():
        yield from command_paths(sub, (*path, name))


def test_every_help_lists_help_like_the_other_flags_without_a_type():
    paths = list(command_paths(typer.main.get_command(app)))
    assert ("rng", "report") in paths and ("par",) in paths
    for path in paths:
        result = invoke(*path, "--help")
        lines = [line for line in result.stdout.splitlines() if "--help " in line]
        assert result.exit_code == 0 and len(lines) == 1, (path, result.output)
        # The flag's own line: its description may wrap in a narrow terminal, its type never shows.
        assert "<" not in lines[0] and "Show this message" in lines[0], (path, lines[0])


# -- output a person reads -------------------------------------------------------------------
def test_simulate_text_labels_points_shows_the_seed_and_rtps_in_percent():
    result = invoke("simulate", "dynasty", "-n", "200000", "--seed", "5")
    assert result.exit_code == 0, result.output
    text = result.stdout
    assert "seed 5: 200,000 rounds" in text
    assert "percentage points (95%)" in text and "percentage points (99%)" in text
    assert "fingerprint" in text and "dynasty dynasty/" not in text
    free_rtp = next(line for line in text.splitlines() if line.startswith("free_spins.rtp: "))
    assert free_rtp.endswith("%")
    assert "round function ready in" in text


def test_workers_above_the_cores_are_capped_with_a_word():
    result = invoke("simulate", "dynasty", "-n", "1000", "-w", "99", "--json")
    assert result.exit_code == 0, result.output
    assert "--workers 99: this machine has" in result.stderr
    assert json.loads(result.stdout)["workers"] < 99


def test_the_workers_announced_are_the_workers_that_ran():
    """Fewer rounds than two chunks keep one worker busy: the progress line says so (and why)
    before the run, as the report does after it."""
    result = invoke("simulate", "dynasty", "-n", "1000", "-w", "2")
    assert result.exit_code == 0, result.output
    announced = re.search(r"rounds on (\d+) worker\(s\)", result.stderr)
    reported = re.search(r"rounds/s on (\d+) worker\(s\)", result.stdout)
    assert announced and reported, result.output
    assert announced.group(1) == reported.group(1) == "1"
    assert "a worker takes whole chunks" in result.stderr


# -- usage errors: one line, exit 2 ----------------------------------------------------------
@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        (("simulate", "dynasty", "-n", "abc"), ("'--rounds' / '-n'", "integer")),
        (("simulate", "dynasty", "--seed", "-1"), ("'--seed'", "greater than or equal to 0")),
        (("play", "dynasty", "--seed", "-1"), ("'--seed'", "greater than or equal to 0")),
        (("simulate", "dynasty", "--bogus"), ("--bogus",)),
        (("rtp", "pachinko"), ("game: unknown game 'pachinko'",)),
        (("play", "dynasty", "--bet", "lines=21"), ("bet.lines: expected a whole number from 1 to 20, got 21",)),
        (("rtp", "dynasty", "--rounds", "10", "--seconds", "1"), ("--rounds and --seconds",)),
        (("rtp", "dynasty", "--bet", "lines=0"), ("bet.lines",)),
        (("par", "dynasty", "--shipped", "-n", "5"), ("--shipped", "--rounds")),
        (("par",), ("GAME: expected one of",)),
        (("play", "golden-grimoire", "--choice", "red"), ("choices[0]: golden-grimoire takes no choices",)),
        (("rtp", "wish-upon-a-jackpot", "--strategy", "greedy"), ("strategy: wish-upon-a-jackpot has no strategy",
                                                                   "'best', 'worst', 'first', 'last'")),
        (("play", "wish-upon-a-jackpot", "--bet", "stake=0.30"), ("bet.stake: expected one of 0.20, 0.40",)),
        # A count no run could finish is a typo: refused with the limit, before anything starts.
        (("simulate", "dynasty", "-n", "99999999999999999999999"), ("'--rounds' / '-n'", "1000000000000")),
        (("rtp", "moon-of-fortune", "-n", "99999999999999999999999"), ("'--rounds' / '-n'", "1000000000000")),
        # A report that no strategy moves refuses one rather than ignore it.
        (("rtp", "divine-fortune", "--strategy", "start"), ("--strategy", "divine-fortune", "does not depend")),
        (("rtp", "golden-grimoire", "--strategy", "collect"), ("strategy: golden-grimoire has no strategy",)),
    ],
)
def test_bad_options_are_one_line_errors(args, fragments):
    assert_bad_input(invoke(*args), *fragments)


# -- files: missing, folders, malformed, unwritable ------------------------------------------
def test_a_folder_given_as_a_file_names_it(tmp_path):
    folder = str(tmp_path)
    assert_bad_input(invoke("play", "dynasty", "--script", folder), folder, "is a folder; expected a script file")
    assert_bad_input(invoke("simulate", "dynasty", "--model", folder), folder, "is a folder; expected a model file")
    assert_bad_input(invoke("replay", folder), folder, "is a folder; expected a round record file")
    assert_bad_input(invoke("par", "dynasty", "--out", folder), "--out", "is a folder")


def test_missing_and_malformed_scripts_name_the_file(tmp_path):
    missing = str(tmp_path / "nope.json")
    assert_bad_input(invoke("play", "dynasty", "--script", missing), missing, "no such script file")
    broken = tmp_path / "broken.json"
    broken.write_text('{"screens": [\n  1 2]}')
    assert_bad_input(invoke("play", "dynasty", "--script", str(broken)), str(broken), "line 2", "not valid JSON")


def test_par_out_is_checked_before_any_work_and_never_overwritten_by_accident(tmp_path):
    existing = tmp_path / "sheet.md"
    existing.write_text("certified")
    assert_bad_input(invoke("par", "dynasty", "--out", str(existing)), "exists; give --force")
    assert existing.read_text() == "certified"
    blocked = tmp_path / "a-file" / "sheet.md"
    (tmp_path / "a-file").write_text("")
    assert_bad_input(invoke("par", "dynasty", "--out", str(blocked)), "--out", "is not a folder")


def test_model_errors_name_the_file_without_pydantic_framing(tmp_path):
    raw = json.loads(DYNASTY_MODEL.read_text())
    path = tmp_path / "variant.json"
    path.write_text(json.dumps({**raw, "paylines": "lines_99"}))
    result = invoke("rtp", "dynasty", "--model", str(path))
    assert_bad_input(result, str(path), "paylines: unknown payline set 'lines_99'")
    assert "(top level)" not in result.stderr and "Value error" not in result.stderr


# -- play, resume and replay -----------------------------------------------------------------
def test_piped_answers_play_the_gamble(tmp_path):
    record = played_record(tmp_path, "--seed", GAMBLING_SEED, input="black\ncollect\n")
    assert record["status"] == "complete"
    assert record["inputs"]["choices"] == ["black", "collect"]
    assert record["steps"][1]["kind"] == "gamble"


def test_an_awaiting_round_is_saved_and_resumed(tmp_path):
    record = played_record(tmp_path, "--seed", GAMBLING_SEED)
    assert record["status"] == "awaiting"
    resumed = invoke("resume", str(tmp_path / "record.json"), "--choice", "collect", "--json")
    assert resumed.exit_code == 0, resumed.output
    final = json.loads(resumed.stdout)
    assert final["status"] == "complete" and final["total_win"] == record["awaiting"]["win"]
    assert invoke("replay", write_record(tmp_path, final)).exit_code == 0


def test_a_choice_the_round_never_asks_for_is_reported():
    result = invoke("play", "dynasty", "--seed", "1", "--choice", "red")
    assert result.exit_code == 0
    assert "--choice red: not used" in result.stderr


def test_seed_with_a_script_makes_the_unscripted_rest_reproducible():
    script = str(ROOT / "examples/golden-grimoire-mystery.json")
    one = invoke("play", "golden-grimoire", "--script", script, "--seed", "3", "--json")
    two = invoke("play", "golden-grimoire", "--script", script, "--seed", "3", "--json")
    assert one.exit_code == 0, one.output
    assert json.loads(one.stdout) == json.loads(two.stdout)


@pytest.mark.parametrize(
    ("tamper", "fragment"),
    [
        (lambda r: r["inputs"]["operator"].update(gamble_limit="lots"), "inputs.operator.gamble_limit"),
        (lambda r: r["inputs"]["operator"].update(gamble_limit="-5.00"), "inputs.operator.gamble_limit"),
        (lambda r: r["inputs"]["operator"].update(gamble_limit=1000), "inputs.operator.gamble_limit"),
        (lambda r: r["inputs"].update(random=[1, 2, 3]), "inputs.random: expected a list of 16-digit hex strings"),
        (lambda r: r["inputs"].update(random=["zz"]), "inputs.random"),
        (lambda r: r.pop("bet"), "bet: expected an object"),
        (lambda r: r.pop("steps"), "steps: expected a list"),
        (lambda r: r.pop("status"), "status: expected a string"),
        (lambda r: r.pop("total_win"), "total_win: expected a string"),
    ],
)
def test_unreadable_records_are_bad_input_not_mismatches(tmp_path, tamper, fragment):
    record = played_record(tmp_path, "--seed", GAMBLING_SEED, "--choice", "collect")
    tamper(record)
    path = write_record(tmp_path, record)
    assert_bad_input(invoke("replay", path), path, fragment)


def test_a_mismatch_shows_the_fields_that_differ(tmp_path):
    record = played_record(tmp_path, "--seed", GAMBLING_SEED, "--choice", "collect")
    record["total_win"] = "99.00"
    result = invoke("replay", write_record(tmp_path, record))
    assert result.exit_code == 1
    assert 'total_win: recorded "99.00", replayed "0.60"' in result.stderr


# -- Ctrl-C: a real process, real signals -----------------------------------------------------
def start_simulation(workers: str) -> subprocess.Popen:
    # The most rounds a run may have (hours of every core): the run is planned lazily, so it starts
    # at once whatever the count.
    command = [sys.executable, "-m", "slotforge.cli", "simulate", "dynasty", "-n", str(10**12), "-w", workers,
               "--json"]
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@pytest.mark.parametrize("workers", ["1", "0"])
def test_ctrl_c_stops_a_simulation_and_prints_what_ran(workers):
    process = start_simulation(workers)
    wait_until_rounds_are_done(process)
    process.send_signal(signal.SIGINT)
    stdout, _ = process.communicate(timeout=60)
    assert process.returncode == 0
    report = json.loads(stdout)
    assert report["interrupted"] is True
    assert 0 < report["rounds"] < 10**12 and report["rounds"] % (1 << 20) == 0


def test_ctrl_c_twice_and_more_still_ends_cleanly_with_the_figures():
    process = start_simulation("0")
    wait_until_rounds_are_done(process)
    for _ in range(4):  # an impatient user, or `timeout -s INT` followed by another
        process.send_signal(signal.SIGINT)
        time.sleep(0.05)  # the pace of the presses, not a wait for anything
    stdout, stderr = process.communicate(timeout=60)
    assert process.returncode == 0, stderr
    report = json.loads(stdout)
    assert report["interrupted"] is True and report["rounds"] > 0
    assert 0.5 < report["rtp"] < 1.5


def test_a_piped_answer_the_round_does_not_offer_is_bad_input():
    result = invoke("play", "dynasty", "--seed", GAMBLING_SEED, input="purple\n")
    assert_bad_input(result, "gamble: expected one of collect, red, black", "'purple'")


def test_rtp_report_that_simulates_takes_a_budget_and_prints_its_interval(monkeypatch):
    from slotforge.games.golden_grimoire import maths

    # The exact base game takes half a minute and is not what this test reads: a stand-in
    # worth 75% of the bet, whatever the Mystery draws.
    monkeypatch.setattr(maths, "base_by_draw", lambda game: {"plain": 0.75, "by_draw": dict.fromkeys(maths.POOL, 0.0)})
    result = invoke("rtp", "golden-grimoire", "--rounds", "40000")
    assert result.exit_code == 0, result.output
    text = result.stdout
    assert "free_spins_simulated: 40,000" in text
    assert "base_lines                   75.0000%" in text
    interval = next(line for line in text.splitlines() if line.startswith("interval99: "))
    low, high = (float(x.rstrip("%")) for x in interval.removeprefix("interval99: ").split(" to "))
    assert 90 < low < high < 100  # shown, in percent (rich once swallowed it as markup)
    assert "percentage points (99%)" in text.splitlines()[1]


def test_the_environment_handed_to_workers_is_what_the_server_reads(monkeypatch):
    """serve hands its settings to its workers through the environment: each variable is one the
    server's settings (or its app's settings file) are read from, spelled by env_name alone."""
    from slotforge.cli.common import ENV_PREFIX, env_name, hand_on
    from slotforge.rgs.app import CONFIG_ENV
    from slotforge.rgs.settings import Settings

    assert ENV_PREFIX == Settings.model_config["env_prefix"]
    assert env_name("config") == CONFIG_ENV
    for setting in ("database_url", "qa", "jackpot_url", "jackpot_secret"):
        assert setting in Settings.model_fields
    # A copy of the environment without the server's variables, put back after the test.
    monkeypatch.setattr(os, "environ", {k: v for k, v in os.environ.items() if not k.startswith(ENV_PREFIX)})
    hand_on({"database_url": "sqlite:///x.db", "qa": None, "jackpot_url": "http://127.0.0.1:1"})
    assert os.environ["SLOTFORGE_DATABASE_URL"] == "sqlite:///x.db"
    assert os.environ["SLOTFORGE_JACKPOT_URL"] == "http://127.0.0.1:1"
    assert "SLOTFORGE_QA" not in os.environ  # a setting not given is not handed on
    assert Settings().database_url == "sqlite:///x.db"  # and the server reads it back
