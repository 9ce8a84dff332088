// The selection grammars of the 'tests' and 'speedtest' inputs against the
// fixture that scripts/gate is tested on too (scripts/tests/gate.bats), so the
// action and the gate accept and refuse the same specs.
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { InputError, parseSpeedtest, parseTests } from './inputs.js'

interface Specs {
  tests: { accept: Record<string, number[]>; reject: string[] }
  speedtest: { accept: Record<string, string>; reject: string[] }
}

const specs = JSON.parse(
  readFileSync(
    path.join(import.meta.dirname, '..', '..', 'scripts', 'tests', 'fixtures', 'specs.json'),
    'utf8'
  )
) as Specs

// "1-3,10-10" -> [1, 2, 3, 10]
function expand(ranges: string): number[] {
  return ranges.split(',').flatMap((r) => {
    const [lo, hi] = r.split('-').map(Number)
    return Array.from({ length: hi - lo + 1 }, (_, i) => lo + i)
  })
}

describe('the shared selection grammars (scripts/tests/fixtures/specs.json)', () => {
  it.each(Object.entries(specs.tests.accept))('tests %j selects %j', (spec, want) => {
    expect(expand(parseTests(spec))).toEqual(want)
  })
  it.each(specs.tests.reject)('tests %j is refused', (spec) => {
    expect(() => parseTests(spec)).toThrow(InputError)
  })
  it.each(Object.entries(specs.speedtest.accept))('speedtest %j is %j', (spec, want) => {
    expect(parseSpeedtest(spec)).toBe(want)
  })
  it.each(specs.speedtest.reject)('speedtest %j is refused', (spec) => {
    expect(() => parseSpeedtest(spec)).toThrow(InputError)
  })
})
