// An afp.conf given for the base server (base-afp-conf): its settings are
// served the way `scripts/local-server start --afp-conf FILE` serves them — the
// [Global] lines and those of its one volume section become the server
// entrypoint's AFP_EXTRA_GLOBAL and AFP_EXTRA_VOLUME — with the same rules:
// where the server listens and what it shares belong to the harness.

// Keys the harness sets itself (as scripts/local-server's read_afp_conf).
export const HARNESS_KEYS: ReadonlySet<string> = new Set([
  'afp port',
  'afp listen',
  'cnid listen',
  'cnid server',
  'path',
  'vol dbpath'
])

export interface AfpConfSettings {
  global: string[] // lines of [Global], as written
  volume: string[] // lines of the one volume section
  ignored: string[] // why lines were left out ([Homes])
}

// Throws Error(message) with the line number; the caller names the input.
export function parseAfpConf(text: string): AfpConfSettings {
  const out: AfpConfSettings = { global: [], volume: [], ignored: [] }
  let section = ''
  let volumes = 0
  const lines = text.split('\n')
  if (lines.at(-1) === '') lines.pop()
  lines.forEach((raw, i) => {
    const n = i + 1
    const line = raw.replace(/\r$/, '')
    if (/^\s*([#;].*)?$/.test(line)) return
    const header = /^\s*\[([^\]]+)\]\s*$/.exec(line)
    if (header) {
      section = header[1]
      const lower = section.toLowerCase()
      if (lower !== 'global' && lower !== 'homes' && ++volumes > 1)
        throw new Error(
          `line ${n}: a second volume section [${section}]; give one (it is served as the volume the benchmark uses)`
        )
      return
    }
    // Control characters other than tab would corrupt the environment or afp.conf.
    // eslint-disable-next-line no-control-regex
    if (/[\u0000-\u0008\u000a-\u001f\u007f]/.test(line))
      throw new Error(`line ${n}: contains a control character`)
    const setting = /^\s*([A-Za-z][A-Za-z0-9 ._:-]*[A-Za-z0-9])\s*=(.*)$/.exec(line)
    if (!setting) throw new Error(`line ${n}: not 'key = value', a [section] or a comment: ${line}`)
    const key = setting[1].toLowerCase().replace(/ +/g, ' ')
    if (HARNESS_KEYS.has(key))
      throw new Error(
        `line ${n}: '${key}' is set by the action (where the server listens and what it shares); remove it`
      )
    switch (section.toLowerCase()) {
      case '':
        throw new Error(`line ${n}: a setting before any [section]`)
      case 'global':
        out.global.push(line)
        break
      case 'homes':
        out.ignored.push(`line ${n}: [Homes] is not served; ignored`)
        break
      default:
        out.volume.push(line)
    }
  })
  return out
}
