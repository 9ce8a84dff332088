import { describe, expect, it } from 'vitest'
import { MAX_COMMENT_CHARS, commentBody, findComment, markerFor, upsertComment } from './comment.js'
import { REPORT_MARKER } from './names.js'
import { FakeGitHub } from './testing/fake-api.js'

const report = `${REPORT_MARKER}\n## afpbench: pass\n\n| metric | ratio |\n|---|---|\n`

describe('commentBody', () => {
  it('starts with the marker once, replacing the report’s own marker line', () => {
    const body = commentBody(REPORT_MARKER, report, 'the artifact')
    expect(body.startsWith(`${REPORT_MARKER}\n## afpbench: pass`)).toBe(true)
    expect(body.split(REPORT_MARKER).length).toBe(2)
  })

  it('uses a keyed marker for matrix jobs', () => {
    expect(commentBody(markerFor('afp3.3'), report, 'x').split('\n')[0]).toBe(
      '<!-- afpbench-action:report key=afp3.3 -->'
    )
  })

  it('adds the marker to a report without one', () => {
    expect(commentBody(REPORT_MARKER, 'plain text', 'x')).toBe(`${REPORT_MARKER}\nplain text`)
  })

  it('cuts a long report at a line boundary under GitHub’s limit, saying where the rest is', () => {
    const long = `${report}${'| lantest.1.time | 1.01 |\n'.repeat(5000)}`
    const body = commentBody(REPORT_MARKER, long, 'the artifact afpbench-results')
    expect(body.length).toBeLessThanOrEqual(MAX_COMMENT_CHARS)
    expect(body).toMatch(
      /\| 1\.01 \|\n\n… the report is longer than a comment may be; the full report is in the artifact afpbench-results\n$/
    )
  })
})

describe('findComment', () => {
  it('finds our comment by its first line only, across pages', () => {
    const gh = new FakeGitHub()
    for (let i = 0; i < 150; i++) gh.addComment(7, `chatter ${i}`)
    gh.addComment(7, `> quoting\n${REPORT_MARKER}\nnot ours`)
    const ours = gh.addComment(7, `${REPORT_MARKER}\nours`)
    return findComment(gh, 7, REPORT_MARKER).then((found) => {
      expect(found?.id).toBe(ours.id)
      expect(gh.callsTo('listComments').map((c) => c.args[1])).toEqual([1, 2])
    })
  })

  it('a keyed marker does not match the plain one', async () => {
    const gh = new FakeGitHub()
    gh.addComment(7, `${REPORT_MARKER}\nplain`)
    expect(await findComment(gh, 7, markerFor('k'))).toBeNull()
  })
})

describe('upsertComment', () => {
  it('creates one comment, then updates that same one', async () => {
    const gh = new FakeGitHub()
    const first = await upsertComment(
      gh,
      42,
      REPORT_MARKER,
      `${REPORT_MARKER}\nrun 1`,
      'always',
      'pass'
    )
    const second = await upsertComment(
      gh,
      42,
      REPORT_MARKER,
      `${REPORT_MARKER}\nrun 2`,
      'always',
      'fail'
    )
    expect(first.action).toBe('created')
    expect(second.action).toBe('updated')
    expect(gh.comments.size).toBe(1)
    expect([...gh.comments.values()][0].body).toBe(`${REPORT_MARKER}\nrun 2`)
    expect(gh.callsTo('createComment')).toHaveLength(1)
    expect(gh.callsTo('updateComment')).toHaveLength(1)
  })

  it('on-change: no new comment for a pass', async () => {
    const gh = new FakeGitHub()
    const res = await upsertComment(gh, 42, REPORT_MARKER, 'b', 'on-change', 'pass')
    expect(res.action).toBe('skipped')
    expect(gh.callsTo('createComment')).toHaveLength(0)
  })

  it('on-change: a comment for an inconclusive verdict, and later updated by a pass', async () => {
    const gh = new FakeGitHub()
    await upsertComment(
      gh,
      42,
      REPORT_MARKER,
      `${REPORT_MARKER}\ninconclusive`,
      'on-change',
      'inconclusive'
    )
    const res = await upsertComment(
      gh,
      42,
      REPORT_MARKER,
      `${REPORT_MARKER}\npass`,
      'on-change',
      'pass'
    )
    expect(res.action).toBe('updated')
    expect([...gh.comments.values()][0].body).toMatch(/pass$/)
  })

  it('never: makes no call at all', async () => {
    const gh = new FakeGitHub()
    expect((await upsertComment(gh, 42, REPORT_MARKER, 'b', 'never', 'fail')).action).toBe(
      'skipped'
    )
    expect(gh.calls).toEqual([])
  })

  it('passes an API error on to the caller', async () => {
    const gh = new FakeGitHub()
    gh.failures.set('createComment', 403)
    await expect(upsertComment(gh, 42, REPORT_MARKER, 'b', 'always', 'pass')).rejects.toMatchObject(
      { status: 403 }
    )
  })
})
