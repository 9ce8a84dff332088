// scripts/history-page: the history page from a directory in the data
// branch's layout (docs/history-page.md).
//
//   node dist/history-page.js DIR [OUT] [--repo-url URL]
//
// Exit 0: written; 3: bad input (DIR not in the data branch's layout, no run
// in it, OUT holds something else, a bad --repo-url), named on stderr.

import { readDataDir, DirError } from './read-dir.js'
import { safeRepoUrl } from './page-data.js'
import { OutError, writePage } from './write-page.js'

const USAGE = 'usage: scripts/history-page DIR [OUT] [--repo-url https://github.com/OWNER/REPO]'

class UsageError extends Error {}
class Help extends Error {}

function parseArgs(argv: string[]): { dir: string; out: string; repoUrl: string } {
  const pos: string[] = []
  let repoUrl = ''
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    if (a === '--repo-url') {
      const v = argv[++i] ?? ''
      repoUrl = safeRepoUrl(v)
      if (repoUrl === '')
        throw new UsageError(
          `--repo-url '${v.slice(0, 200)}' is not an https address like https://github.com/OWNER/REPO`
        )
    } else if (a === '-h' || a === '--help') {
      throw new Help(USAGE)
    } else if (a.startsWith('-')) {
      throw new UsageError(`unknown option ${a.slice(0, 60)}\n${USAGE}`)
    } else pos.push(a)
  }
  if (pos.length < 1 || pos.length > 2) throw new UsageError(USAGE)
  return { dir: pos[0], out: pos[1] ?? 'history-page', repoUrl }
}

function main(): number {
  try {
    const args = parseArgs(process.argv.slice(2))
    const history = readDataDir(args.dir)
    for (const p of history.problems) process.stderr.write(`history-page: skipped: ${p}\n`)
    if (history.keys.length === 0)
      throw new DirError(`${args.dir} holds no readable run (runs/<key>/<YYYY-MM>/*.json)`)
    const w = writePage(history, args.out, { repoUrl: args.repoUrl })
    process.stdout.write(
      `history-page: ${args.out}: ${w.runs} runs of ${w.keys} key(s), ${w.steps} steps; ` +
        `${w.files} files, ${w.bytes} bytes (data ${w.dataBytes})\n`
    )
    return 0
  } catch (e) {
    if (e instanceof Help) {
      process.stdout.write(`${e.message}\n`)
      return 0
    }
    if (e instanceof UsageError || e instanceof DirError || e instanceof OutError) {
      process.stderr.write(`history-page: ${e.message}\n`)
      return 3
    }
    throw e
  }
}

process.exitCode = main()
