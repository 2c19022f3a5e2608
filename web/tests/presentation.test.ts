// Stakes by the server's rule, big wins by multiple of the stake, the count-up, and anticipation.
import { describe, expect, it } from "vitest";
import { stakeOf } from "../src/bets";
import { bigWinTier, countUp } from "../src/presenter";
import { anticipatedReels } from "../src/reels";

describe("stakeOf", () => {
  it("multiplies the amount by the count fields and the factor, exactly", () => {
    expect(stakeOf({ amount: "coin_value", times: ["lines", "coins_per_line"], factor: 1 }, { lines: 20, coins_per_line: 3, coin_value: "0.05" })).toBe("3.00");
    expect(stakeOf({ amount: "coin_value", times: ["bet_level"], factor: 20 }, { bet_level: 7, coin_value: "0.01" })).toBe("1.40");
    expect(stakeOf({ amount: "stake", times: [], factor: 1 }, { stake: "0.20" })).toBe("0.20");
  });
  it("gives nothing for a bet without its fields", () => {
    expect(stakeOf({ amount: "bet", times: ["chance_level"], factor: 1 }, {})).toBe("");
  });
});

describe("bigWinTier", () => {
  it("names a win by its multiple of the stake", () => {
    expect(bigWinTier("9.99", "1.00")).toBeNull();
    expect(bigWinTier("10.00", "1.00")).toBe("BIG WIN");
    expect(bigWinTier("25.00", "1.00")).toBe("MEGA WIN");
    expect(bigWinTier("50.00", "1.00")).toBe("EPIC WIN");
    expect(bigWinTier("5.00", "0.00")).toBeNull();
  });
});

describe("countUp", () => {
  it("rises to the exact total", () => {
    const steps = countUp("12.34", 7);
    expect(steps).toHaveLength(7);
    expect(steps.at(-1)).toBe("12.34");
    expect(steps.map(Number)).toEqual([...steps.map(Number)].sort((a, b) => a - b));
  });
});

describe("anticipatedReels", () => {
  const blank = () => Array.from({ length: 3 }, () => Array.from({ length: 5 }, () => "TEN"));
  const rule = { symbols: ["SCATTER"], count: 3, reels: [0, 2, 4] };
  it("slows the last reel that can bring the third scatter", () => {
    const screen = blank();
    screen[0][0] = "SCATTER";
    screen[1][2] = "SCATTER";
    expect(anticipatedReels(screen, rule)).toEqual([4]);
  });
  it("never teases a feature the landed reels have ruled out", () => {
    const screen = blank();
    screen[0][0] = "SCATTER"; // one only, and only reels 3 and 5 left: anticipation would need two landed
    expect(anticipatedReels(screen, rule)).toEqual([]);
    expect(anticipatedReels(blank(), rule)).toEqual([]);
  });
  it("never slows a reel that cannot hold the symbol", () => {
    const screen = blank();
    screen[0][0] = "SCATTER";
    screen[0][2] = "SCATTER";
    expect(anticipatedReels(screen, rule)).not.toContain(3);
  });
  it("anticipates on every reel that can still complete the count where any reel may hold it", () => {
    const screen = blank();
    screen[0][0] = "SCATTER";
    screen[0][1] = "SCATTER";
    expect(anticipatedReels(screen, { symbols: ["SCATTER"], count: 3 })).toEqual([2, 3, 4]);
  });
  it("stops anticipating once the count is made", () => {
    const screen = blank();
    screen[0][0] = "SCATTER";
    screen[0][1] = "SCATTER";
    screen[0][2] = "SCATTER";
    expect(anticipatedReels(screen, { symbols: ["SCATTER"], count: 3 })).toEqual([2]);
  });
});
