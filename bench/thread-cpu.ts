/**
 * This thread's CPU time in ms, to the microsecond: clock_gettime(CLOCK_THREAD_CPUTIME_ID) through
 * bun:ffi. /proc/thread-self/schedstat (which the registry benches read before) and
 * process.threadCpuUsage() only advance at the scheduler's ticks on this kernel (4 ms), so a
 * slice's CPU read from them was off by up to a tick either way, and the longest of many such
 * readings leaned high. Falls back to schedstat where the symbol cannot be loaded.
 */
import { readFileSync } from "node:fs";

const CLOCK_THREAD_CPUTIME_ID = 3;

function ffiClock(): (() => number) | null {
  try {
    // Loaded lazily: bun:ffi exists only under Bun, and libc's name only on glibc Linux.
    const { dlopen, FFIType, ptr } = require("bun:ffi") as typeof import("bun:ffi");
    const lib = dlopen("libc.so.6", { clock_gettime: { args: [FFIType.i32, FFIType.ptr], returns: FFIType.i32 } });
    const time = new BigInt64Array(2);
    const at = ptr(time);
    return () => {
      lib.symbols.clock_gettime(CLOCK_THREAD_CPUTIME_ID, at);
      return Number(time[0]) * 1e3 + Number(time[1]) / 1e6;
    };
  } catch {
    return null;
  }
}

const schedstatClock = (): number => Number(readFileSync("/proc/thread-self/schedstat", "utf8").split(" ")[0]) / 1e6;

export const threadCpuMs: () => number = ffiClock() ?? schedstatClock;
