// Where the history page is served (docs/history-page.md): the pages-url
// input, else GitHub Pages' address of a project site on github.com
// (https://OWNER.github.io/NAME/) when the action publishes the page
// (pages-branch); '' when it is served nowhere the action knows. The comment's
// trend (trend.json's page) and the job summary link to it.

import { keyDir } from './history-store.js'
import type { Config } from './inputs.js'

export function pageUrl(
  config: Pick<Config, 'pagesUrl' | 'pagesBranch' | 'commentKey'>,
  serverRepo: string // https://github.com/OWNER/NAME
): string {
  // a matrix's configurations are keys of one page: the link opens this one's
  const key =
    config.commentKey !== '' ? `#key=${encodeURIComponent(keyDir(config.commentKey))}` : ''
  if (config.pagesUrl !== '') return `${config.pagesUrl}${key}`
  if (config.pagesBranch === '') return ''
  const m = /^https:\/\/github\.com\/([A-Za-z0-9-]+)\/([A-Za-z0-9._-]+)$/.exec(serverRepo)
  if (m === null) return ''
  const owner = m[1].toLowerCase()
  // a repository named OWNER.github.io is served at the root
  const site = m[2].toLowerCase() === `${owner}.github.io` ? '' : `${m[2]}/`
  return `https://${owner}.github.io/${site}${key}`
}
