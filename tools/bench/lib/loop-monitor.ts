// How long this process's event loop was kept from running a timer: a timer every millisecond, and the
// time between two of its runs (wall clock) is the longest task in between, plus up to a millisecond.
// On a busy machine the wall time also holds the time the process waited for a core; the CPU time this
// process used in the same gap (process.cpuUsage: its threads together, the main one foremost) tells the
// task's own length from that wait. On Linux, the main thread's own scheduler figures
// (/proc/thread-self/schedstat: its time on a core, and waiting for one) give each gap's wait for a core
// exactly: the gap less that wait is the task's length as an idle machine would have seen it (its time
// on a core, and any synchronous I/O it waited for), whatever the other processes on the machine do.

import { closeSync, openSync, readSync } from "node:fs";

const RESOLUTION_MS = 1;

export interface LoopFigures {
  /** The timer's samples. */
  samples: number;
  /** The longest gap between two runs of the timer (wall clock), ms. */
  maxMs: number;
  /** The 99th percentile of the gaps, ms. */
  p99Ms: number;
  /** Gaps longer than `overMs`. */
  over: number;
  overMs: number;
  /** The CPU time this process used during the longest gap, and the most it used in any one gap, ms. */
  cpuOfMaxMs: number;
  maxCpuMs: number;
  /**
   * The longest gap less the main thread's wait for a core in it (Linux; NaN elsewhere), ms: the
   * longest task as an idle machine would have run it; with the wall-clock gap it came from.
   */
  maxTaskMs: number;
  gapOfMaxTaskMs: number;
  /** The main thread's time on a core in that gap (the rest of the task: synchronous I/O, page faults), ms. */
  oncpuOfMaxTaskMs: number;
  /** The most time the main thread spent on a core in any one gap (Linux; NaN elsewhere), ms. */
  maxOncpuMs: number;
}

/** The main thread's time on a core and waiting for one so far (ns), from the kernel; null if unknown. */
class ThreadSchedule {
  private readonly fd: number | null;
  private readonly buffer = Buffer.alloc(128);

  constructor() {
    let fd: number | null = null;
    try {
      fd = openSync("/proc/thread-self/schedstat", "r");
    } catch {
      fd = null;
    }
    this.fd = fd;
  }

  /** [on a core, waiting for one], ms. */
  read(): [number, number] {
    if (this.fd === null) return [Number.NaN, Number.NaN];
    const n = readSync(this.fd, this.buffer, 0, this.buffer.length, 0);
    const [oncpu, waited] = this.buffer.toString("latin1", 0, n).split(" ");
    return [Number(oncpu) / 1e6, Number(waited) / 1e6];
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
  }
}

export class LoopMonitor {
  private readonly gaps: number[] = [];
  private maxMs = 0;
  private cpuOfMaxMs = 0;
  private maxCpuMs = 0;
  private maxTaskMs = Number.NaN;
  private gapOfMaxTaskMs = Number.NaN;
  private oncpuOfMaxTaskMs = Number.NaN;
  private maxOncpuMs = Number.NaN;
  private timer: NodeJS.Timeout | undefined;
  private schedule: ThreadSchedule | undefined;

  constructor(private readonly overMs: number) {}

  start(): void {
    const schedule = new ThreadSchedule();
    this.schedule = schedule;
    let wall = performance.now();
    let cpu = cpuMs();
    let [oncpu, waited] = schedule.read();
    this.timer = setInterval(() => {
      const nowWall = performance.now();
      const nowCpu = cpuMs();
      const [nowOncpu, nowWaited] = schedule.read();
      const gap = nowWall - wall;
      const used = nowCpu - cpu;
      const task = gap - (nowWaited - waited);
      this.gaps.push(gap);
      if (gap > this.maxMs) {
        this.maxMs = gap;
        this.cpuOfMaxMs = used;
      }
      this.maxCpuMs = Math.max(this.maxCpuMs, used);
      if (!(task <= this.maxTaskMs)) {
        this.maxTaskMs = task;
        this.gapOfMaxTaskMs = gap;
        this.oncpuOfMaxTaskMs = nowOncpu - oncpu;
      }
      wall = nowWall;
      cpu = nowCpu;
      if (!(nowOncpu - oncpu <= this.maxOncpuMs)) this.maxOncpuMs = nowOncpu - oncpu;
      waited = nowWaited;
      oncpu = nowOncpu;
    }, RESOLUTION_MS);
  }

  stop(): LoopFigures {
    clearInterval(this.timer);
    this.schedule?.close();
    const sorted = [...this.gaps].sort((a, b) => a - b);
    const p99 = sorted[Math.max(0, Math.ceil(0.99 * sorted.length) - 1)] ?? Number.NaN;
    return {
      samples: sorted.length,
      maxMs: sorted.length > 0 ? this.maxMs : Number.NaN,
      p99Ms: p99,
      over: sorted.filter((g) => g > this.overMs).length,
      overMs: this.overMs,
      cpuOfMaxMs: this.cpuOfMaxMs,
      maxCpuMs: this.maxCpuMs,
      maxTaskMs: this.maxTaskMs,
      gapOfMaxTaskMs: this.gapOfMaxTaskMs,
      oncpuOfMaxTaskMs: this.oncpuOfMaxTaskMs,
      maxOncpuMs: this.maxOncpuMs,
    };
  }
}

function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}
