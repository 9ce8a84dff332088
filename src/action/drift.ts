// Steps in the default branch's count series: a level that changed at one
// commit and stayed changed. Each pull request is gated against its own base,
// so ten steps of +2 % each pass ten gates; the history shows all ten.
//
// The method is binary segmentation: split a series where the means before
// and after differ most, weighted by sqrt(n1 n2 / n) (the CUSUM statistic,
// whose largest value is at a change in level, not at a lopsided split), keep
// the split when the medians before and after differ by more than the
// series' own noise and than MIN_STEP, and go on in both halves. Why not e-divisive (Apache Otava): these series are counts, the same
// on every run of the same code (IO and system calls exactly, instructions
// within about 1 %), so a level shift is plain to see and a permutation test
// has nothing to add; medians keep one odd run from making or hiding a step.
// The noise is estimated from the run-to-run differences (their median
// absolute deviation, which the few steps themselves cannot inflate).

export const MIN_STEP = 0.005 // relative: 0.5 %
const NOISE_FACTOR = 4
const MAX_STEPS = 8

export interface Step {
  index: number // the first point at the new level
  before: number // median of the segment before
  after: number // median of the segment after
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 === 1 ? s[m] : (s[m - 1] + s[m]) / 2
}

// The run-to-run noise of a series: the scaled median absolute deviation of
// its first differences, over sqrt(2) (a difference holds two runs' noise).
export function noise(xs: number[]): number {
  if (xs.length < 3) return 0
  const d = xs.slice(1).map((x, i) => x - xs[i])
  const m = median(d)
  return (1.4826 * median(d.map((x) => Math.abs(x - m)))) / Math.SQRT2
}

// The steps of one series, in order. floor: the smallest move in the series'
// unit that the verdict decides on (a count row's floor, e.g. one system call
// over a run's AFP ops): a level that moved by no more is no step.
// useNoise false: an exact series (IO and system call counts, the same on
// every run of the same code), too short for a noise estimate: a level that
// moved beyond the floor and MIN_STEP is a step.
export function findSteps(xs: number[], minStep = MIN_STEP, floor = 0, useNoise = true): Step[] {
  const sigma = useNoise ? noise(xs) : 0
  const steps: Step[] = []
  const split = (lo: number, hi: number): void => {
    if (hi - lo < 2 || steps.length >= MAX_STEPS) return
    const n = hi - lo
    const total = xs.slice(lo, hi).reduce((a, b) => a + b, 0)
    let left = 0
    let at = -1
    let bestScore = 0
    for (let k = lo + 1; k < hi; k++) {
      left += xs[k - 1]
      const n1 = k - lo
      const n2 = n - n1
      const score = Math.sqrt((n1 * n2) / n) * Math.abs((total - left) / n2 - left / n1)
      if (score > bestScore) {
        bestScore = score
        at = k
      }
    }
    if (at < 0) return
    // the levels are medians: one odd run neither makes nor hides a step
    const before = median(xs.slice(lo, at))
    const after = median(xs.slice(at, hi))
    const diff = Math.abs(after - before)
    const level = Math.max(Math.abs(before), Number.MIN_VALUE)
    if (diff / level < minStep || diff <= NOISE_FACTOR * sigma || diff <= floor) return
    steps.push({ index: at, before, after })
    split(lo, at)
    split(at, hi)
  }
  split(0, xs.length)
  // each step's levels between its neighbours, not over the wider segment
  // it was found in
  const at = steps.map((s) => s.index).sort((a, b) => a - b)
  return at.map((index, i) => ({
    index,
    before: median(xs.slice(at[i - 1] ?? 0, index)),
    after: median(xs.slice(index, at[i + 1] ?? xs.length))
  }))
}
