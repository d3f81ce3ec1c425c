// How long this process's event loop was kept from running a timer: a timer every millisecond, and the
// time between two of its runs (wall clock) is the longest task in between, plus up to a millisecond.
// On a busy machine the wall time also holds the time the process waited for a core; the CPU time this
// process used in the same gap (process.cpuUsage: its threads together, the main one foremost) tells the
// task's own length from that wait.

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
}

export class LoopMonitor {
  private readonly gaps: number[] = [];
  private maxMs = 0;
  private cpuOfMaxMs = 0;
  private maxCpuMs = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly overMs: number) {}

  start(): void {
    let wall = performance.now();
    let cpu = cpuMs();
    this.timer = setInterval(() => {
      const nowWall = performance.now();
      const nowCpu = cpuMs();
      const gap = nowWall - wall;
      const used = nowCpu - cpu;
      this.gaps.push(gap);
      if (gap > this.maxMs) {
        this.maxMs = gap;
        this.cpuOfMaxMs = used;
      }
      this.maxCpuMs = Math.max(this.maxCpuMs, used);
      wall = nowWall;
      cpu = nowCpu;
    }, RESOLUTION_MS);
  }

  stop(): LoopFigures {
    clearInterval(this.timer);
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
    };
  }
}

function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}
