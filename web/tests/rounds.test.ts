// How a round's record is told to a player: wins, events, and the words for ids.
import { describe, expect, it } from "vitest";
import { describeEvent, describeWin, plural, readable, symbolName } from "../src/rounds";
import { wishUponAJackpot } from "../src/screens/wish-upon-a-jackpot";
import { dynasty } from "../src/screens/dynasty";

const win = (fields: Record<string, unknown>) => ({ kind: "line", symbol: "KING", count: 3, amount: "0.10", ...fields });

describe("describeWin", () => {
  it("says a lost gamble is lost, with the card drawn", () => {
    const text = describeWin(win({ kind: "gamble", symbol: "DIAMONDS", amount: "0.00" }));
    expect(text).toBe("Gamble lost (Diamonds drawn)");
    expect(text).not.toMatch(/won/);
  });

  it("says a won gamble is won, with its amount", () => {
    expect(describeWin(win({ kind: "gamble", symbol: "SUN", amount: "4.00" }))).toBe("Gamble won (Sun drawn): 4.00");
  });

  it("tells one jackpot, not its count of rows as a number of jackpots", () => {
    const text = describeWin(win({ kind: "jackpot", symbol: "MAJOR", count: 2, amount: "20.00" }));
    expect(text).toBe("Major jackpot: 20.00");
    expect(text).not.toMatch(/2 ×/);
  });

  it("names a symbol as its cell shows it (Wish's LOGO is drawn WISH)", () => {
    expect(describeWin(win({ symbol: "LOGO", line: 4 }), wishUponAJackpot)).toBe("Line 4: 3 × WISH: 0.10");
    expect(symbolName("LOGO", wishUponAJackpot)).toBe("WISH");
    expect(symbolName("KING", wishUponAJackpot)).toBe("KING");
  });

  it("shows a multiplier only above one", () => {
    expect(describeWin(win({ line: 1, multiplier: 1 }))).toBe("Line 1: 3 × KING: 0.10");
    expect(describeWin(win({ line: 1, multiplier: 3 }))).toBe("Line 1: 3 × KING ×3: 0.10");
  });
});

describe("describeEvent", () => {
  it("says Wish Upon a Jackpot's ids in words", () => {
    const lines = [
      describeEvent({ type: "golden_egg", egg: "egg_2", amount: "5.00" }, wishUponAJackpot),
      describeEvent({ type: "bonus_winnings", feature: "three_little_pigs", amount: "3.00" }, wishUponAJackpot),
      describeEvent({ type: "offer", offer: 4, multiplier: 12, amount: "12.00", scrolls_left: 1 }, wishUponAJackpot),
      describeEvent({ type: "fairy_godmother_appears", bonus: true, during: "base" }, wishUponAJackpot),
    ];
    expect(lines[0]).toBe("Golden egg 2 opened: 5.00");
    expect(lines[1]).toBe("3 Little Pigs Free Spins won 3.00");
    expect(lines[2]).toContain("(1 scroll left)");
    for (const line of lines) expect(line).not.toMatch(/[a-z]+_[a-z0-9]+/);
  });

  it("turns ids into words in the generic line of an event no game describes", () => {
    expect(describeEvent({ type: "mystery_thing", feature: "three_little_pigs", count: 2 }, dynasty)).toBe("Mystery thing: feature three little pigs, count 2");
  });
});

describe("words", () => {
  it("pluralises by count", () => {
    expect(plural(1, "scroll")).toBe("1 scroll");
    expect(plural(0, "scroll")).toBe("0 scrolls");
    expect(plural(3, "scroll")).toBe("3 scrolls");
  });
  it("reads ids", () => {
    expect(readable("egg_2")).toBe("egg 2");
  });
});
