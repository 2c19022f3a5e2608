"""The operator's settings: a TOML file validated on load, environment variables, command options.

Priority, highest first: command-line options, ``SLOTFORGE_*`` environment variables, the
settings file, the defaults below. Jurisdiction profiles are data: the shipped ones can be
changed and new ones added in the file's ``[jurisdictions.NAME]`` tables.
"""

from __future__ import annotations

import hashlib
import re
import socket
import tomllib
from decimal import Decimal
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, ValidationInfo, field_validator
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict, TomlConfigSettingsSource

from slotforge.amounts import SettingAmount, setting_amount

# EUR per unit of a currency, written as strict decimal text ("1.17").
Rate = setting_amount(places=12)
# The shortest shared secret taken (a wallet's signing secret, the jackpot service's bearer).
SHORTEST_SECRET = 16


class SettingsError(ValueError):
    """A settings file or value the server cannot use, naming the field."""


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class AutoplayRules(Strict):
    allowed: bool = True
    max_rounds: int = Field(100, ge=0)
    loss_limit_required: bool = True


class PlayerLimits(Strict):
    """The limits a player sets on their own play (docs/server.md, "Players' own limits"), when
    the jurisdiction offers them: net loss limits per rolling day, week and month, a session time
    limit, and a time-out. Tightening a limit holds at once; loosening or removing it only after
    ``cooling_off_hours``, so that a decision taken in the heat of play cannot undo a calmer one."""

    enabled: bool = Field(False, description="players may set their own limits (and the server enforces them)")
    cooling_off_hours: int = Field(24, ge=0, le=24 * 31,
                                   description="how long a loosened or removed limit waits before it applies")
    time_out_hours: list[int] = Field([24, 168, 720], min_length=1,
                                      description="the time-outs a player may take, in hours")
    max_session_minutes: int = Field(24 * 60, ge=1, description="the longest session time limit a player may set")

    @field_validator("time_out_hours")
    @classmethod
    def _durations(cls, hours: list[int]) -> list[int]:
        if any(hour < 1 for hour in hours) or len(set(hours)) != len(hours):
            raise ValueError(f"expected distinct whole hours of at least 1, got {hours}")
        return sorted(hours)


class Jurisdiction(Strict):
    """What one regulator allows; every rule is enforced by the server, not just hidden."""

    autoplay: AutoplayRules = AutoplayRules()
    min_round_ms: int = Field(0, ge=0, description="least time between the starts of two rounds")
    gamble: bool = True
    max_stake: SettingAmount | None = Field(None, gt=0, description="largest total bet of one round")
    show_net_position: bool = False
    show_session_timer: bool = False
    reality_check_s: int | None = Field(None, gt=0)
    turbo: bool = True
    recall_rounds: int = Field(100, ge=1, description="how many past rounds a player may recall")
    interrupted_round_days: int = Field(90, ge=1, description="days before an open round is completed for the player")
    inactivity_minutes: int | None = Field(None, gt=0, description="session time-out; the server's when unset")
    limits: PlayerLimits = Field(PlayerLimits(), description="the limits players may set on their own play")


SHIPPED_JURISDICTIONS: dict[str, Jurisdiction] = {
    "default": Jurisdiction(),
    "uk": Jurisdiction(
        autoplay=AutoplayRules(allowed=False, max_rounds=0),
        min_round_ms=2500,
        show_net_position=True,
        show_session_timer=True,
        reality_check_s=3600,
        turbo=False,
    ),
    "ontario": Jurisdiction(recall_rounds=10, inactivity_minutes=15, show_session_timer=True),
    "malta": Jurisdiction(reality_check_s=3600, show_session_timer=True),
}


class OperatorSettings(Strict):
    """How one operator (by the name given to ``slotforge operator add``) keeps its players' money:
    ``internal`` (the server's own books, moved by deposits and withdrawals) or ``seamless`` (the
    operator's wallet, called over HTTP for every round; see docs/wallet.md)."""

    wallet: Literal["internal", "seamless"] = "internal"
    wallet_url: str | None = Field(None, validate_default=True, description="the wallet's base URL (seamless)")
    wallet_secret: SecretStr | None = Field(None, validate_default=True,
                                            description="the shared secret of the X-Signature HMAC (seamless)")
    timeout_s: float = Field(2.0, gt=0, le=30, description="time allowed to one call of the wallet")
    debit_attempts: int = Field(2, ge=1, le=5, description="tries of a debit (same transaction id) before it "
                                "is rolled back and the round void")
    rollback_hold_s: int = Field(60, ge=1, le=3600, description="a debit's rollback falls due this long after "
                                 "it was sent unless its round committed (a crash mid-round)")

    @field_validator("wallet_url")
    @classmethod
    def _url(cls, value: str | None, info: ValidationInfo) -> str | None:
        if value is None:
            if info.data.get("wallet") == "seamless":
                raise ValueError('required when wallet = "seamless"')
            return None
        if not value.startswith(("http://", "https://")):
            raise ValueError(f"expected an http:// or https:// URL, got {value!r}")
        return value.rstrip("/")

    @field_validator("wallet_secret")
    @classmethod
    def _secret(cls, value: SecretStr | None, info: ValidationInfo) -> SecretStr | None:
        if value is None and info.data.get("wallet") == "seamless":
            raise ValueError('required when wallet = "seamless"')
        if value is not None and len(value.get_secret_value()) < SHORTEST_SECRET:
            raise ValueError(f"expected at least {SHORTEST_SECRET} characters")
        return value

    @field_validator("rollback_hold_s")
    @classmethod
    def _hold(cls, value: int, info: ValidationInfo) -> int:
        timeout, attempts = info.data.get("timeout_s"), info.data.get("debit_attempts")
        if timeout is not None and attempts is not None and value < 2 * attempts * (timeout + 0.2) + 1:
            raise ValueError(f"expected at least twice the debit's retries ({attempts} x timeout_s {timeout}) "
                             "plus a second")
        return value

    @property
    def seamless(self) -> bool:
        return self.wallet == "seamless"

    def budget_s(self) -> float:
        """The longest a debit can take with its retries: its rollback must wait longer."""
        return self.debit_attempts * (self.timeout_s + 0.2)


class Settings(BaseSettings):
    """Everything an operator can set (see docs/server.md for each field)."""

    model_config = SettingsConfigDict(env_prefix="SLOTFORGE_", extra="forbid", frozen=True)

    database_url: str = Field("sqlite:///slotforge.db", description="SQLite file or postgresql+psycopg:// URL")
    session_minutes: int = Field(30, gt=0, description="a session expires after this much inactivity")
    qa: bool = Field(False, description="accept scripts in fun sessions (browser tests, QA)")
    gamble_limit: SettingAmount = Field(Decimal("1000.00"), ge=0, description="largest amount a gamble may win")
    fun_balance: SettingAmount = Field(Decimal("1000.00"), gt=0, description="play money of a fun session")
    currencies: list[str] = Field(["EUR"], min_length=1, description="currencies players may hold")
    play_url: str = Field("/play?token={token}", description="where an operator sends a player; {token} is filled")
    games: list[str] | None = Field(None, description="games offered (all when unset)")
    fun_sessions_per_minute: int = Field(30, ge=1, description="fun sessions one client address may open a "
                                         "minute (then 429 RATE_LIMITED), per server process")
    fun_idle_minutes: int = Field(60, gt=0, description="a fun player idle this long (and past its session's "
                                  "time-out) is deleted with its rounds")
    jurisdictions: dict[str, Jurisdiction] = Field(default_factory=dict, description="profiles added or replaced")
    rtp_versions: dict[str, dict[str, str]] = Field(
        default_factory=dict,
        description="per game, the RTP version each market plays: selector ('*', a jurisdiction, '*:CUR' or "
                    "'jurisdiction:CUR') -> version name (`slotforge games` lists them); the most specific "
                    "selector wins, and a game without one plays its published model")
    rounds_in_flight: int = Field(
        32, ge=1, le=1000, description="rounds each operator may have running at once in one server process; "
                                       "the next wait their turn, so a slow wallet stalls only its own players")
    jackpot_url: str | None = Field(None, description="the jackpot service's URL (pools in this database when unset)")
    jackpot_server_id: str | None = Field(
        None, pattern=r"^[A-Za-z0-9_.@-]{1,100}$",
        description="this game server's name at the jackpot service, unique among the servers sharing it "
                    "(default: the host's name and a digest of the database URL)")
    jackpot_rates: dict[str, Rate] = Field(
        default_factory=dict, description="EUR per unit of each currency other than EUR whose players may play "
                                          "jackpot games: stakes are converted into the pools' EUR at this rate")
    jackpot_secret: str | None = Field(
        None, min_length=SHORTEST_SECRET,
        description="the jackpot service's shared secret (its --secret), sent with every call")
    jackpot_claim_lease_s: float = Field(
        300, gt=0, description="a claim the jackpot service holds for a round this server never committed is "
                               "released after this long")
    fault_at: str | None = Field(
        None, description="testing only: the step of a round at which the server process kills itself "
                          "(SIGKILL), e.g. after_play_round; see slotforge.rgs.store.FAULT_STEPS")

    @field_validator("jackpot_rates")
    @classmethod
    def positive_rates(cls, rates: dict[str, Decimal]) -> dict[str, Decimal]:
        for currency, rate in rates.items():
            if not re.fullmatch(r"[A-Z]{3}", currency) or not rate.is_finite() or rate <= 0:
                raise ValueError(f"{currency}: expected a three-letter currency and a rate above zero, got {rate}")
        return rates

    def jackpot_rate(self, currency: str) -> Decimal | None:
        """EUR per unit of ``currency`` for jackpot pools (1 for EUR; None when the table has none)."""
        return Decimal(1) if currency == "EUR" else self.jackpot_rates.get(currency)

    def jackpot_server(self) -> str:
        """This server's name at the jackpot service: a round's key there is NAME:ROUND."""
        if self.jackpot_server_id:
            return self.jackpot_server_id
        digest = hashlib.sha256(self.database_url.encode()).hexdigest()[:10]
        host = re.sub(r"[^A-Za-z0-9_.@-]", "-", socket.gethostname())[:60] or "server"
        return f"{host}-{digest}"

    operators: dict[str, OperatorSettings] = Field(default_factory=dict,
                                                   description="per operator name: its wallet (internal by default)")

    def operator(self, name: str) -> OperatorSettings:
        return self.operators.get(name) or OperatorSettings()

    def jurisdiction(self, name: str) -> Jurisdiction | None:
        return {**SHIPPED_JURISDICTIONS, **self.jurisdictions}.get(name)

    def jurisdiction_names(self) -> list[str]:
        return sorted({**SHIPPED_JURISDICTIONS, **self.jurisdictions})


def load_settings(config_file: Path | None = None, **overrides: Any) -> Settings:
    """Settings from ``overrides`` (None values ignored), the environment, then the file."""
    if config_file is not None and not Path(config_file).is_file():
        raise SettingsError(f"--config: no settings file at {config_file}")

    class FromFile(Settings):
        @classmethod
        def settings_customise_sources(
            cls, settings_cls: type[BaseSettings], init_settings: PydanticBaseSettingsSource,
            env_settings: PydanticBaseSettingsSource, **others: PydanticBaseSettingsSource,
        ) -> tuple[PydanticBaseSettingsSource, ...]:
            sources = [init_settings, env_settings]
            if config_file is not None:
                sources.append(TomlConfigSettingsSource(settings_cls, toml_file=config_file))
            return tuple(sources)

    source = f"{config_file}: " if config_file else ""
    try:
        return FromFile(**{key: value for key, value in overrides.items() if value is not None})
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise SettingsError(f"{source}{where}: {first['msg']}") from error
    except tomllib.TOMLDecodeError as error:
        raise SettingsError(f"{source}{error}") from error
