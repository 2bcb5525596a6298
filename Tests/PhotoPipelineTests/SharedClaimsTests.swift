import Foundation
import PhotoCodecs
@testable import PhotoPipeline
import Locking
import TestOrigin
import Testing

/// The pipeline among several instances, with the other instances played by the test: claims they
/// hold, what they report, results they keep in the shared store, viewers of theirs that wait.
@Suite("Shared claims: work another instance holds or wants")
struct SharedClaimsTests {
    /// Claims shared with instances the test plays: `held` keys are theirs until `letGo`.
    final class OtherInstances: WorkClaiming {
        private struct State {
            var held: Set<String> = []
            var waiters: [String: [@Sendable () -> Void]] = [:]
            var wantedElsewhere = false
        }

        private let state: Locked<State>
        /// Each key this instance starts waiting for.
        private let waited: AsyncStream<String>
        private let waitedContinuation: AsyncStream<String>.Continuation

        init(wantedElsewhere: Bool = false) {
            state = Locked(State(wantedElsewhere: wantedElsewhere))
            (waited, waitedContinuation) = AsyncStream.makeStream()
        }

        /// The next key this instance starts waiting for; fails after `timeout` (a bound, not a clock).
        func nextWaited(timeout: Duration = .seconds(20)) async throws -> String? {
            try await withThrowingTaskGroup(of: String?.self) { group in
                group.addTask { [waited] in
                    var keys = waited.makeAsyncIterator()
                    return await keys.next()
                }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    throw CancellationError()
                }
                defer { group.cancelAll() }
                return try await group.next() ?? nil
            }
        }

        /// Another instance takes `key`.
        func hold(_ key: String) {
            _ = state.withLock { $0.held.insert(key) }
        }

        var isShared: Bool { true }

        func claim(_ key: String) -> Bool {
            state.withLock { !$0.held.contains(key) }
        }

        func release(_ key: String) {}

        func whenReleased(_ key: String, then: @escaping @Sendable () -> Void) {
            state.withLock { $0.waiters[key, default: []].append(then) }
            waitedContinuation.yield(key)
        }

        func isWantedElsewhere(_ key: String, reply: @escaping @Sendable (Bool) -> Void) {
            reply(state.withLock { $0.wantedElsewhere })
        }

        /// The other instance lets go of `key` (it finished, or died).
        func letGo(_ key: String) {
            let waiters = state.withLock { state in
                state.held.remove(key)
                return state.waiters.removeValue(forKey: key) ?? []
            }
            waiters.forEach { $0() }
        }
    }

    /// The store every instance shares, in memory.
    final class SharedStore: ResultStoring {
        private let files = Locked<[String: Data]>([:])

        func contains(_ name: String) -> Bool { files.withLock { $0[name] != nil } }
        func read(_ name: String) -> Data? { files.withLock { $0[name] } }
        func write(_ data: Data, for name: String) -> [String] {
            files.withLock { $0[name] = data }
            return []
        }
        func flush() {}
    }

    static func name(_ variant: ImageVariant, of harness: PipelineHarness) -> String {
        harness.pipeline.diskKey(0, variant)
    }

    @Test func aPhotoAnotherInstanceHoldsShowsItsProgressThenIsFilteredFromItsOriginal() async throws {
        // Given another instance holding row 0's download
        let bytes = TestPhotos.jpeg()
        let store = SharedStore()
        let others = OtherInstances()
        let harness = try PipelineHarness(
            photos: [("/p00.jpg", .body(contentType: "image/jpeg", bytes: bytes))], claims: others, results: store)
        defer { harness.close() }
        let downloadKey = "download \(harness.pipeline.entries[0].cacheKey)"
        others.hold(downloadKey)

        // When a viewer here wants it
        harness.controller().loadImagesForOnscreenRows(0...0)
        #expect(try await others.nextWaited() == downloadKey)
        // Then nothing is fetched here; the holder's progress is shown
        harness.pipeline.applyRemoteState(.downloading(progress: 0.5), of: 0)
        try await harness.recorder.wait(photo: 0, "the holder's progress") { $0 == .downloading(progress: 0.5) }
        #expect(harness.pipeline.photosWaitedFor == 1)

        // When the holder keeps the original in the shared store and lets go
        _ = store.write(Data(bytes), for: Self.name(.original, of: harness))
        harness.pipeline.resultArrived(named: Self.name(.original, of: harness))
        others.letGo(downloadKey)

        // Then this instance filters that original, never having asked the origin
        try await harness.recorder.wait(photo: 0, "filtered") { $0 == .filtered }
        #expect(harness.origin.requestCount("/p00.jpg") == 0)
        #expect(store.contains(Self.name(.thumbnail, of: harness)))
        #expect(harness.pipeline.photosWaitedFor == 0)
    }

    @Test func aHolderThatDiesWithoutAResultLeavesThePhotoToThisInstance() async throws {
        let others = OtherInstances()
        let harness = try PipelineHarness(
            photos: [("/p00.jpg", .body(contentType: "image/jpeg", bytes: TestPhotos.jpeg()))], claims: others, results: SharedStore())
        defer { harness.close() }
        let downloadKey = "download \(harness.pipeline.entries[0].cacheKey)"
        others.hold(downloadKey)
        harness.controller().loadImagesForOnscreenRows(0...0)
        #expect(try await others.nextWaited() == downloadKey)

        others.letGo(downloadKey)

        try await harness.recorder.wait(photo: 0, "filtered") { $0 == .filtered }
        #expect(harness.origin.requestCount("/p00.jpg") == 1)
    }

    @Test(arguments: [true, false])
    func runningWorkNoViewerHereWantsGoesOnOnlyIfAnotherInstanceWaitsForIt(wantedElsewhere: Bool) async throws {
        // Given row 0's download running here, held at half by its origin
        let bytes = TestPhotos.jpeg(seed: 3, width: 1600, height: 1067)
        let gate = OriginGate()
        gate.open(.firstBytes)
        let others = OtherInstances(wantedElsewhere: wantedElsewhere)
        let harness = try PipelineHarness(
            photos: [
                ("/p00.jpg", .gated(bytes: bytes, firstBytes: bytes.count / 2, gate: gate)),
                ("/p01.jpg", .body(contentType: "image/jpeg", bytes: TestPhotos.jpeg())),
            ],
            claims: others, results: SharedStore())
        defer { harness.close() }
        let controller = harness.controller()
        controller.loadImagesForOnscreenRows(0...0)
        try await harness.origin.waitUntilRequested("/p00.jpg")

        // When the only viewer here scrolls away from it
        controller.loadImagesForOnscreenRows(1...1)
        try await harness.recorder.wait(photo: 1, "row 1 filtered") { $0 == .filtered }
        gate.openAll()

        // Then it is cancelled only when no other instance waits for it
        try await harness.recorder.wait(for: "row 0's download ended") { events in
            events.contains { event in
                guard case .operation(let operation) = event.kind else { return false }
                return operation.queue == .download && operation.index == 0 && operation.outcome != .started
            }
        }
        let cancelled = await harness.recorder.operations(.download, .cancelled)
        #expect(cancelled == (wantedElsewhere ? [] : [0]))
        #expect(harness.origin.requestCount("/p00.jpg") == 1)
    }
}
