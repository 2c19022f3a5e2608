// The players a grant names, as the back office reads them from pasted ids or a CSV.
import { describe, expect, it } from "vitest";
import { grantees } from "../src/operator/campaigns";

describe("grantees", () => {
  it("reads ids pasted with commas, spaces or lines, each once, in the form's currency", () => {
    expect(grantees("alice, bob\ncarol dave\n\nalice", "EUR")).toEqual(
      ["alice", "bob", "carol", "dave"].map((player_id) => ({ player_id, currency: "EUR" })));
  });

  it("reads a CSV's rows after its header, each in its own currency or the form's", () => {
    expect(grantees("zoe\nplayer_id,currency\r\n\"ann 1\",gbp\nbob,\nzoe,USD\n", "EUR")).toEqual([
      { player_id: "zoe", currency: "EUR" }, { player_id: "ann 1", currency: "GBP" },
      { player_id: "bob", currency: "EUR" }]);
  });

  it("names nobody for an empty paste", () => {
    expect(grantees("  \n , ", "EUR")).toEqual([]);
  });
});
