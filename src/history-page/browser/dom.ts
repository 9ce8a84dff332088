// Making the page's elements. Text goes in as text (textContent), never as
// HTML: every string here may come from a data file anyone with write access
// to the branch can change. Links are built from checked parts only.

type Child = Node | string | null | undefined | false

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag)
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'class') e.className = v
    else e.setAttribute(k, v)
  }
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue
    e.append(typeof c === 'string' ? document.createTextNode(c) : c)
  }
  return e
}

// A link to a commit of the repository: the address is checked (safeRepoUrl)
// and the commit is 40 hex digits, or there is no link, only the short name.
export function commitLink(repoUrl: string, commit: string): HTMLElement {
  const short = commit.slice(0, 7)
  if (repoUrl === '' || !/^[0-9a-f]{40}$/.test(commit))
    return el('code', { class: 'commit', 'data-commit': commit }, short)
  return el(
    'a',
    {
      class: 'commit',
      href: `${repoUrl}/commit/${commit}`,
      'data-commit': commit,
      rel: 'noopener noreferrer'
    },
    el('code', {}, short)
  )
}

export function option(value: string, label: string, selected: boolean): HTMLOptionElement {
  const o = el('option', { value }, label)
  o.selected = selected
  return o
}

// 53900 -> "53,900"; 0.0123944 -> "0.0124"; 3.00003 -> "3.00003"
export function fmt(x: number): string {
  if (x === 0) return '0'
  const a = Math.abs(x)
  if (a >= 1000) return Math.round(x).toLocaleString('en-US')
  return String(Number(x.toPrecision(a >= 1 ? 6 : 3)))
}

// 53900 -> "53.9k" (an axis's labels)
export function compact(x: number): string {
  const a = Math.abs(x)
  if (a >= 1e9) return `${Number((x / 1e9).toPrecision(3))}G`
  if (a >= 1e6) return `${Number((x / 1e6).toPrecision(3))}M`
  if (a >= 1e4) return `${Number((x / 1e3).toPrecision(3))}k`
  return String(Number(x.toPrecision(4)))
}

// "+12 %", "−3.4 %", "0 → 0.323"
export function change(before: number, after: number): string {
  if (before === 0) return `0 → ${fmt(after)}`
  const v = (after / before - 1) * 100
  const a = Math.abs(v)
  return `${v >= 0 ? '+' : '−'}${a.toFixed(a < 10 ? 1 : 0)} %`
}
