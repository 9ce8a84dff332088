// An EventInfo for tests: a push to main of commit b…b, unless told otherwise.
import type { EventInfo } from '../event.js'

export function testEvent(over: Partial<EventInfo> = {}): EventInfo {
  return {
    name: 'push',
    repository: 'o/r',
    pullRequest: null,
    headSha: 'b'.repeat(40),
    baseSha: '',
    fork: false,
    headRepository: 'o/r',
    workflowRun: null,
    ref: 'refs/heads/main',
    defaultBranch: 'main',
    releaseTag: '',
    ...over
  }
}
