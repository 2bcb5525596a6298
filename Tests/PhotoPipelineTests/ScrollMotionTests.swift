@testable import PhotoPipeline
import Testing

@Suite("Scroll motion: reading or flicking, and how far to read ahead")
struct ScrollMotionTests {
    let start = ContinuousClock.now

    /// Reports of a 9-row screen whose first row is each of `firsts`, `every` apart from `from`.
    func play(_ firsts: [Int], every: Duration, from offset: Duration = .zero, into motion: inout ScrollMotion) -> ScrollMotion.Kind {
        var kind = motion.kind
        for (step, first) in firsts.enumerated() {
            kind = motion.observe(first...(first + 8), at: start + offset + every * step)
        }
        return kind
    }

    @Test func theFirstScreenRestsAndReadsHalfAScreenOrTheMarginBelow() {
        var motion = ScrollMotion()
        #expect(motion.observe(0...8, at: start) == .resting)
        let below = motion.readAhead(of: 0...8, margin: 3, at: start)
        #expect(below.direction == 1 && below.depth == 5)
        #expect(motion.readAhead(of: 0...8, margin: 7, at: start).depth == 7)
    }

    @Test func aSlowSmoothScrollIsReadingInItsDirection() {
        // Given a reader moving half a screen in 300 ms, reported every 100 ms after a pause
        var motion = ScrollMotion()
        _ = motion.observe(0...8, at: start)
        let kind = play([1, 3, 4, 4], every: .milliseconds(100), from: .seconds(2), into: &motion)
        // Then it reads down; and scrolling back up reads up
        #expect(kind == .reading(direction: 1))
        #expect(play([3, 2], every: .milliseconds(100), from: .seconds(4), into: &motion) == .reading(direction: -1))
    }

    @Test func aMoveOfMoreThanAScreenOrFasterThanThreeScreensASecondIsAFlick() {
        var jump = ScrollMotion()
        _ = jump.observe(0...8, at: start)
        #expect(jump.observe(150...158, at: start + .seconds(3)) == .flicking)
        #expect(jump.readAhead(of: 150...158, margin: 3, at: start + .seconds(3)).depth == 0)

        // 4 rows every 100 ms on a 9-row screen: 4.4 screens a second, each step under a screen
        var fast = ScrollMotion()
        _ = fast.observe(0...8, at: start)
        #expect(play([4, 8, 12], every: .milliseconds(100), from: .seconds(1), into: &fast) == .flicking)

        // The stop after a flick keeps reading nothing ahead; the next slow move reads again
        #expect(fast.observe(12...20, at: start + .seconds(2)) == .flicking)
        #expect(play([13, 14], every: .milliseconds(100), from: .seconds(4), into: &fast) == .reading(direction: 1))
    }

    @Test func reportsBunchedInTransitAreNotMistakenForAFlick() {
        // Two reports a row apart arriving 5 ms apart are as far apart as the page sent them
        var motion = ScrollMotion()
        _ = motion.observe(0...8, at: start)
        #expect(play([1, 2], every: .milliseconds(5), from: .seconds(2), into: &motion) == .reading(direction: 1))
    }

    @Test func theDepthFollowsThePaceWithinHalfAScreenAndTwoScreens() {
        // A slow reader: half a screen (4-5 rows) every 2 s, about 2.25 rows a second
        var slow = ScrollMotion()
        for stop in 0...2 {
            _ = slow.observe((stop * 9 / 2)...(stop * 9 / 2 + 8), at: start + .seconds(2 * stop))
        }
        let slowDepth = slow.readAhead(of: 9...17, margin: 3, at: start + .seconds(4)).depth
        #expect(slowDepth == 9)  // 9 rows over 4 s, 4 s ahead

        // A faster reader: two thirds of a screen a second
        var quick = ScrollMotion()
        for stop in 0...3 {
            _ = quick.observe((stop * 6)...(stop * 6 + 8), at: start + .seconds(stop))
        }
        #expect(quick.kind == .reading(direction: 1))
        let quickDepth = quick.readAhead(of: 18...26, margin: 3, at: start + .seconds(3)).depth
        #expect(quickDepth > slowDepth)
        #expect(quickDepth == 18)  // capped at two screens

        // A very slow reader still gets half a screen
        var crawl = ScrollMotion()
        _ = crawl.observe(0...8, at: start)
        _ = crawl.observe(1...9, at: start + .seconds(4))
        #expect(crawl.readAhead(of: 1...9, margin: 3, at: start + .seconds(4)).depth == 5)
    }
}
