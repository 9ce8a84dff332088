// The house's rooms import each other one way: no two modules import each
// other, directly or in a circle, in the action (TypeScript) or in the
// verdict's jq modules (issue 34). A circle is where a change to one module
// silently needs a change in another.

import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'

const REPO = path.resolve(__dirname, '..', '..')

// module -> the modules it imports, from the files of dir matching ext
function graph(dir: string, ext: string, imports: RegExp): Map<string, string[]> {
  const g = new Map<string, string[]>()
  for (const f of readdirSync(dir)) {
    if (!f.endsWith(ext) || f.endsWith(`.test${ext}`)) continue
    const text = readFileSync(path.join(dir, f), 'utf8')
    g.set(
      f.slice(0, -ext.length),
      [...text.matchAll(imports)].map((m) => m[1])
    )
  }
  return g
}

// every circle, each as the path that closes it
function circles(g: Map<string, string[]>): string[] {
  const found: string[] = []
  const done = new Set<string>()
  const visit = (n: string, stack: string[]): void => {
    for (const d of g.get(n) ?? []) {
      const at = stack.indexOf(d)
      if (at >= 0) found.push([...stack.slice(at), d].join(' → '))
      else if (!done.has(d)) visit(d, [...stack, d])
    }
    done.add(n)
  }
  for (const n of g.keys()) if (!done.has(n)) visit(n, [n])
  return found
}

describe('no module imports another that imports it back', () => {
  it('the action (src/action/*.ts)', () => {
    const g = graph(path.join(REPO, 'src', 'action'), '.ts', /from '\.\/([\w-]+)\.js'/g)
    expect(g.size).toBeGreaterThan(20)
    expect(circles(g)).toEqual([])
  })

  it("the verdict's jq modules (scripts/jq/*.jq)", () => {
    const g = graph(path.join(REPO, 'scripts', 'jq'), '.jq', /^include "([\w-]+)";/gm)
    expect(g.get('verdict')).toContain('reference')
    expect(circles(g)).toEqual([])
  })

  it('finds a circle where there is one', () => {
    const g = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['a']]
    ])
    expect(circles(g)).toEqual(['a → b → c → a'])
  })
})
