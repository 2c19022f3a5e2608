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
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict, TomlConfigSettingsSource


class SettingsError(ValueError):
    """A settings file or value the server cannot use, naming the field."""


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class AutoplayRules(Strict):
    allowed: bool = True
    max_rounds: int = Field(100, ge=0)
    loss_limit_required: bool = True


class Jurisdiction(Strict):
    """What one regulator allows; every rule is enforced by the server, not just hidden."""

    autoplay: AutoplayRules = AutoplayRules()
    min_round_ms: int = Field(0, ge=0, description="least time between the starts of two rounds")
    gamble: bool = True
    max_stake: Decimal | None = Field(None, gt=0, description="largest total bet of one round")
    show_net_position: bool = False
    show_session_timer: bool = False
    reality_check_s: int | None = Field(None, gt=0)
    turbo: bool = True
    recall_rounds: int = Field(100, ge=1, description="how many past rounds a player may recall")
    interrupted_round_days: int = Field(90, ge=1, description="days before an open round is completed for the player")
    inactivity_minutes: int | None = Field(None, gt=0, description="session time-out; the server's when unset")


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


class Settings(BaseSettings):
    """Everything an operator can set (see docs/server.md for each field)."""

    model_config = SettingsConfigDict(env_prefix="SLOTFORGE_", extra="forbid", frozen=True)

    database_url: str = Field("sqlite:///slotforge.db", description="SQLite file or postgresql+psycopg:// URL")
    session_minutes: int = Field(30, gt=0, description="a session expires after this much inactivity")
    qa: bool = Field(False, description="accept scripts in fun sessions (browser tests, QA)")
    gamble_limit: Decimal = Field(Decimal("1000.00"), ge=0, description="largest amount a gamble may win")
    fun_balance: Decimal = Field(Decimal("1000.00"), gt=0, description="play money of a fun session")
    currencies: list[str] = Field(["EUR"], min_length=1, description="currencies players may hold")
    play_url: str = Field("/play?token={token}", description="where an operator sends a player; {token} is filled")
    games: list[str] | None = Field(None, description="games offered (all when unset)")
    jurisdictions: dict[str, Jurisdiction] = Field(default_factory=dict, description="profiles added or replaced")
    jackpot_url: str | None = Field(None, description="the jackpot service's URL (pools in this database when unset)")
    jackpot_server_id: str | None = Field(
        None, pattern=r"^[A-Za-z0-9_.@-]{1,100}$",
        description="this game server's name at the jackpot service, unique among the servers sharing it "
                    "(default: the host's name and a digest of the database URL)")
    jackpot_rates: dict[str, Decimal] = Field(
        default_factory=dict, description="EUR per unit of each currency other than EUR whose players may play "
                                          "jackpot games: stakes are converted into the pools' EUR at this rate")
    jackpot_claim_lease_s: float = Field(
        300, gt=0, description="a claim the jackpot service holds for a round this server never committed is "
                               "released after this long")

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
