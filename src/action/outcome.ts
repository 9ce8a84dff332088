// Whether the step fails, from the verdict and the fail-on input.

import type { FailOn } from './inputs.js'
import type { Status } from './verdict.js'

// An error (nothing or not all was measured) always fails the step, whatever
// fail-on says: a gate that could not run must never look like a pass.
export function shouldFail(status: Status, failOn: FailOn): boolean {
  switch (status) {
    case 'error':
      return true
    case 'fail':
      return failOn !== 'never'
    case 'inconclusive':
      return failOn === 'inconclusive'
    case 'pass':
      return false
  }
}

export function failureMessage(status: Status, summary: string): string {
  const what =
    status === 'error'
      ? 'the benchmark gate could not reach a verdict'
      : status === 'fail'
        ? 'performance regressed beyond the thresholds'
        : 'the result is inconclusive (noise larger than the threshold, or data missing)'
  return `afpbench verdict: ${status}: ${what}${summary ? ` (${summary})` : ''}`
}
