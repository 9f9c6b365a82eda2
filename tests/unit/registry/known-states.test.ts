import { describe, expect, test } from "bun:test";
import type { Address } from "@solana/kit";
import { createKnownStates } from "../../../src/infrastructure/registry/known-states.ts";
import { testAddress } from "../../registry/support/registry-fixtures.ts";

const a = (n: number) => `acct${n}` as Address;
const state = (n: number, record = `r${n}`) => ({ size: n, h1: n * 3, h2: 0xffffffff - n, record, slot: 2 ** 53 - n, seen: n, applied: n * 10 });

describe("known states (the baseline's columns)", () => {
  test("set, read back and update each column; unknown accounts have no row", () => {
    const known = createKnownStates<string>();
    for (let n = 0; n < 1_000; n++) known.set(a(n), state(n));
    expect(known.size()).toBe(1_000);
    expect(known.rowOf(a(5_000))).toBe(-1);
    const row = known.rowOf(a(777));
    expect([known.fieldBytes(row), known.h1(row), known.h2(row), known.record(row), known.slot(row), known.seen(row), known.applied(row)]).toEqual([777, 2_331, 0xffffffff - 777, "r777", 2 ** 53 - 777, 777, 7_770]);
    known.setSlot(row, 5);
    known.setSeen(row, 6);
    known.setApplied(row, 7);
    expect([known.slot(row), known.seen(row), known.applied(row)]).toEqual([5, 6, 7]);
    // Setting a known account again keeps its row and its place in the order.
    known.set(a(777), state(1, "again"));
    expect(known.rowOf(a(777))).toBe(row);
    expect(known.record(row)).toBe("again");
    expect([...known.entries()].map(([address]) => address)).toEqual(Array.from({ length: 1_000 }, (_, n) => a(n)));
  });

  test("a forgotten account's row is reused without its old values; the order is that of first set, as a Map's", () => {
    const known = createKnownStates<string>();
    for (const n of [1, 2, 3]) known.set(a(n), state(n));
    const freed = known.rowOf(a(2));
    known.delete(a(2));
    known.delete(a(99));
    expect(known.rowOf(a(2))).toBe(-1);
    expect(known.size()).toBe(2);
    known.set(a(4), state(4));
    expect(known.rowOf(a(4))).toBe(freed);
    expect(known.record(freed)).toBe("r4");
    expect(known.slot(freed)).toBe(2 ** 53 - 4);
    expect([...known.entries()].map(([address, row]) => [address, known.record(row)])).toEqual([
      [a(1), "r1"],
      [a(3), "r3"],
      [a(4), "r4"],
    ]);
  });
});

describe("known states by packed address (the hash over the rows)", () => {
  test("a churn of real addresses and odd names agrees with a Map, rows, order and all", () => {
    const known = createKnownStates<string>();
    const model = new Map<Address, string>();
    let s = 5;
    const next = () => (s = (Math.imul(s, 1_103_515_245) + 12_345) >>> 0) / 4_294_967_296;
    const name = (n: number) => (n % 17 === 0 ? (`odd-name-${n}-é` as Address) : testAddress(6, n));
    for (let step = 0; step < 60_000; step++) {
      const n = Math.floor(next() * 8_000);
      if (next() < 0.35) {
        known.delete(name(n));
        model.delete(name(n));
      } else {
        known.set(name(n), state(n % 100, `v${step}`));
        model.set(name(n), `v${step}`);
      }
    }
    expect(known.size()).toBe(model.size);
    for (let n = 0; n < 8_000; n++) {
      const row = known.rowOf(name(n));
      expect(row >= 0 ? known.record(row) : undefined).toBe(model.get(name(n)));
    }
    expect([...known.rows()].map((row) => [known.address(row), known.record(row)])).toEqual([...model.entries()]);
  });
});
